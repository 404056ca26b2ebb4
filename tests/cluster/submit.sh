#!/usr/bin/env bash
# A local stand-in for a cluster's submit command (snakemake-executor-plugin-cluster-generic):
# runs the job script "$1" as a separate background process, as a scheduler would, and prints its job id.
# The job's exit status lands in <id>.status beside the job script's output for status.sh.
set -euo pipefail
jobscript=$1
spool=${BANDITREPRO_TEST_SPOOL:?}
mkdir -p "$spool"
id=$(date +%s%N)$RANDOM
nohup bash -c 'bash "$1" > "$2/$3.out" 2>&1; echo $? > "$2/$3.status.tmp"; mv "$2/$3.status.tmp" "$2/$3.status"' \
  _ "$jobscript" "$spool" "$id" > /dev/null 2>&1 &
echo "$id"
