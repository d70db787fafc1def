#!/bin/bash
# Swarm-Ev2's MLE-bench start script: copy to agents/swarm-ev2/start.sh (see deployments/MLEBENCH.md).
#
# MLE-bench runs `bash /home/agent/start.sh key=value ...` as user nonroot, with the agent config's env_vars
# (TIME_LIMIT_SECS, STEP_LIMIT, API keys) and SUBMISSION_DIR, LOGS_DIR, CODE_DIR, AGENT_DIR, COMPETITION_ID set.
# The adapter reads /home/data and /home/instructions.txt, writes $SUBMISSION_DIR/submission.csv, $LOGS_DIR and
# $CODE_DIR, and checks the submission with http://localhost:5000/validate.
set -o pipefail

cd "${AGENT_DIR}/swarm-ev2" || exit 1
eval "$(conda shell.bash hook)" # make conda available to the shell
conda activate agent

export MLEBENCH_WORK_DIR="${MLEBENCH_WORK_DIR:-${AGENT_DIR}/work}" # runs live here, not in the extracted dirs
export PREFECT_HOME="${MLEBENCH_WORK_DIR}/.prefect"                  # Prefect's local database
mkdir -p "${MLEBENCH_WORK_DIR}" "${LOGS_DIR}"

# The adapter hands in its submission before TIME_LIMIT_SECS; `timeout` is only a backstop a minute later.
LIMIT="${TIME_LIMIT_SECS:-86400}"
LIMIT="${LIMIT%.*}"
timeout --kill-after=30 $((LIMIT + 60)) python flows/mlebench_agent.py "$@" 2>&1 \
  | tee -a "${LOGS_DIR}/swarm-ev2-console.log"
status=$?
if [ "$status" -eq 124 ]; then
  echo "swarm-ev2: stopped by the backstop timeout after $((LIMIT + 60)) s"
fi
exit "$status"
