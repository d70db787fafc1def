"""The offline coder trains LightGBM on the GPU only when the run's solutions have one (hints["gpus"])."""

from __future__ import annotations

import pandas as pd
import pytest

from swarm.offline_coder import OfflineClient
from tests.offline.solution_runs import ask, check_run


def test_drafts_ask_for_the_gpu_only_when_the_run_has_one(competitions, tools):
    comp = competitions["titanic"]
    with_gpu = tools.code_of(ask(OfflineClient(seed=0), "draft", comp, seed=11, gpus=1))
    without = tools.code_of(ask(OfflineClient(seed=0), "draft", comp, seed=11))
    assert "def _lgbm_gpu_works" in with_gpu and '{"device_type": "gpu"}' in with_gpu
    assert "_lgbm_gpu_works" not in without and "device_type" not in without
    assert "LGBM_DEVICE = {}" in without  # LightGBM's settings are the CPU's


@pytest.mark.slow
def test_a_gpu_draft_falls_back_to_the_cpu_where_lightgbm_cannot_open_a_gpu(competitions, tools, tmp_path):
    comp = competitions["titanic"]
    code = tools.code_of(ask(OfflineClient(seed=0), "draft", comp, seed=11, gpus=1))
    result = tools.run(code, comp.input_dir, tmp_path)
    check_run(result, comp, pd.read_csv(comp.input_dir / "sample_submission.csv"))
    assert "LightGBM device: cpu" in result.output  # this machine has no GPU
