"""Claims, tables and the replication report built from aggregated results."""
