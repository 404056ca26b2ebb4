#!/usr/bin/env bash
# Status command for tests/cluster/submit.sh: running / success / failed for a job id.
spool=${BANDITREPRO_TEST_SPOOL:?}
if [[ ! -f "$spool/$1.status" ]]; then
  echo running
elif [[ "$(cat "$spool/$1.status")" == 0 ]]; then
  echo success
else
  echo failed
fi
