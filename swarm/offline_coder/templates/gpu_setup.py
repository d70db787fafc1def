"""The GPU setup of a preamble, for runs whose solutions have a GPU."""

# The run has a GPU: LightGBM trains on it when its build can open the device, else on the CPU.
def _lgbm_gpu_works():
    try:
        rows = np.random.default_rng(0).random((64, 2))
        lgb.train({"device_type": "gpu", "verbose": -1}, lgb.Dataset(rows, label=rows[:, 0]), num_boost_round=1)
        return True
    except Exception:
        return False


if HAS_LGBM and _lgbm_gpu_works():
    LGBM_DEVICE = {"device_type": "gpu"}
print("LightGBM device:", LGBM_DEVICE.get("device_type", "cpu"))
