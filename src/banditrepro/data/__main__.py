"""Command line of the dataset layer (called by workflow/rules/data.smk).

    python -m banditrepro.data fetch NAME --raw-dir data/raw [--mirror PATH] [--offline]
    python -m banditrepro.data preprocess NAME --record data/raw/NAME/fetch_record.json --out-dir DIR
    python -m banditrepro.data standin NAME --out-dir data/standin/raw [--seed N] [--size small|full]
    python -m banditrepro.data status [--config config/config.yaml] [--repo-root .] [--out FILE]
        (no hashing; the download hosts of files not on this machine are probed, at most 3 s)

Errors are printed as one line on stderr (exit status 2).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import yaml

from . import DATASET_NAMES, KAGGLE_DATASETS, dataset_statuses
from .integrity import DataError
from .manifest import dataset_spec


def preprocessor(name: str):
    """The preprocessing function the manifest names for ``name``."""
    return dataset_spec(name).preprocessor()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m banditrepro.data", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    fetch = sub.add_parser("fetch", help="fetch and verify raw files, write fetch_record.json")
    fetch.add_argument("name", choices=DATASET_NAMES)
    fetch.add_argument("--raw-dir", type=Path, required=True)
    fetch.add_argument("--mirror", default="", help="mirror folder ('' = none)")
    fetch.add_argument("--offline", action="store_true", help="never use the network")

    prep = sub.add_parser("preprocess", help="build processed tables from a fetch record")
    prep.add_argument("name", choices=DATASET_NAMES)
    prep.add_argument("--record", type=Path, required=True)
    prep.add_argument("--out-dir", type=Path, required=True)
    prep.add_argument("--horizon", type=int, default=None, help="rows T of reward matrices (default 10^6)")

    standin = sub.add_parser("standin", help="generate synthetic raw files with the real schema")
    standin.add_argument("name", choices=KAGGLE_DATASETS)
    standin.add_argument("--out-dir", type=Path, required=True)
    standin.add_argument("--seed", type=int, default=20171128)
    standin.add_argument("--size", choices=("small", "full"), default="full")

    status = sub.add_parser("status", help="one line per dataset: fetched, fetchable, stand-in or missing (and why)")
    status.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    status.add_argument("--repo-root", type=Path, default=Path("."))
    status.add_argument("--out", type=Path, default=None)

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        if args.command == "fetch":
            from .fetch import fetch_dataset

            mirror = Path(args.mirror) if args.mirror else None
            fetch_dataset(args.name, args.raw_dir, mirror, allow_network=not args.offline)
        elif args.command == "preprocess":
            takes_horizon = "horizon" in dataset_spec(args.name).preprocess_options
            kwargs = {"horizon": args.horizon} if args.horizon and takes_horizon else {}
            outputs = preprocessor(args.name)(args.record, args.out_dir, **kwargs)
            for path in outputs:
                print(path)
        elif args.command == "standin":
            from .standin import write_standin

            write_standin(args.name, args.out_dir, seed=args.seed, size=args.size)
        elif args.command == "status":
            config = yaml.safe_load(args.config.read_text(encoding="utf-8"))
            lines = [st.line() for st in dataset_statuses(DATASET_NAMES, config, args.repo_root).values()]
            text = "\n".join(lines) + "\n"
            sys.stdout.write(text)
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(text, encoding="utf-8")
    except DataError as exc:
        print(f"ERROR {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
