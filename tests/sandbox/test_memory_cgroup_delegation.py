"""Where a plain user may make memory cgroups on a cgroup v2 host: the subtree delegated to it, found by walking
up from its own cgroup. This host is cgroup v1, so the search runs on a tmp dir laid out like a cgroup2 mount
(cgroup.controllers, cgroup.subtree_control, cgroup.procs, owners and modes as systemd's delegation leaves
them), not on a real v2 hierarchy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.memory_cgroup import delegated_v2_base

USER = 4242  # the plain user the tree is delegated to (the tests chown to it, so they need root)
SCOPE = "user.slice/user-4242.slice/user@4242.service/app.slice/run.scope"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="laying out owners of another uid needs root")


def _cgroup(path: Path, owner: int, controllers: str, enabled: str = "", procs: str = "", mode: int = 0o644):
    """One cgroup dir as the kernel shows it: its controllers, those enabled for children, its processes."""
    path.mkdir(parents=True, exist_ok=True)
    for name, text in (("cgroup.controllers", controllers), ("cgroup.subtree_control", enabled)):
        (path / name).write_text(text + "\n")
    (path / "cgroup.procs").write_text(procs)
    for item in (path, path / "cgroup.subtree_control", path / "cgroup.procs"):
        os.chown(item, owner, owner)
    (path / "cgroup.subtree_control").chmod(mode)


@pytest.fixture
def mount(tmp_path: Path) -> Path:
    """A systemd user's delegated tree: root owns the slices down to user@4242.service, which the user owns
    with everything below; the scope we run in holds our processes."""
    root = tmp_path / "cgroup2"
    _cgroup(root, 0, "cpuset cpu io memory pids", "cpu io memory pids", "1\n")
    _cgroup(root / "user.slice", 0, "cpu io memory pids", "cpu memory pids")
    _cgroup(root / "user.slice/user-4242.slice", 0, "cpu memory pids", "cpu memory pids")
    _cgroup(root / "user.slice/user-4242.slice/user@4242.service", USER, "cpu memory pids", "memory pids")
    _cgroup(root / SCOPE.rsplit("/", 1)[0], USER, "memory pids", "memory pids")
    _cgroup(root / SCOPE, USER, "memory pids", "", "3301\n3302\n")
    return root


def _proc_cgroup(tmp_path: Path, path: str) -> Path:
    file = tmp_path / "proc-self-cgroup"
    file.write_text(f"0::/{path}\n")
    return file


def test_a_scope_holding_us_puts_the_sandbox_beside_it(mount, tmp_path):
    """Our scope holds processes, so it can enable no controller for a child: its parent (ours, memory on) is
    where swarm-sandbox/ goes."""
    found = delegated_v2_base(mount, USER, _proc_cgroup(tmp_path, SCOPE))
    assert found == mount / "user.slice/user-4242.slice/user@4242.service/app.slice"


def test_an_empty_cgroup_of_ours_is_used_itself(mount, tmp_path):
    (mount / SCOPE / "cgroup.procs").write_text("")
    assert delegated_v2_base(mount, USER, _proc_cgroup(tmp_path, SCOPE)) == mount / SCOPE


def test_a_cgroup_whose_subtree_control_we_cannot_write_is_passed_by(mount, tmp_path):
    app = mount / SCOPE.rsplit("/", 1)[0]
    (app / "cgroup.subtree_control").chmod(0o444)
    found = delegated_v2_base(mount, USER, _proc_cgroup(tmp_path, SCOPE))
    assert found == mount / "user.slice/user-4242.slice/user@4242.service"


def test_another_users_tree_is_refused_with_why(mount, tmp_path):
    with pytest.raises(OSError, match=r"is owned by uid 5151 with a memory controller"):
        delegated_v2_base(mount, 5151, _proc_cgroup(tmp_path, SCOPE))


def test_a_delegation_without_the_memory_controller_is_refused(tmp_path):
    root = tmp_path / "cgroup2"
    _cgroup(root, 0, "cpu memory pids", "cpu pids", "1\n")
    _cgroup(root / "mine", USER, "cpu pids", "cpu")
    _cgroup(root / "mine/leaf", USER, "cpu", "", "77\n")
    with pytest.raises(OSError, match="with a memory controller"):
        delegated_v2_base(root, USER, _proc_cgroup(tmp_path, "mine/leaf"))


def test_our_only_cgroup_holding_processes_is_refused_in_one_sentence(tmp_path):
    """An admin chowned one cgroup to the user and it runs in it: nothing of ours above it to go beside."""
    root = tmp_path / "cgroup2"
    _cgroup(root, 0, "cpu memory pids", "cpu memory pids", "1\n")
    _cgroup(root / "granted", USER, "memory pids", "", "501\n")
    with pytest.raises(OSError, match="holds processes, so cgroup v2 lets it enable no controller") as caught:
        delegated_v2_base(root, USER, _proc_cgroup(tmp_path, "granted"))
    assert str(caught.value).count(". ") == 0 and str(root / "granted") in str(caught.value)


def test_a_host_without_cgroup_v2_for_us_is_refused(tmp_path):
    root = tmp_path / "cgroup2"
    _cgroup(root, 0, "memory", "memory")
    file = tmp_path / "proc-self-cgroup"
    file.write_text("4:memory:/user.slice\n")
    with pytest.raises(OSError, match="names no cgroup v2 of ours"):
        delegated_v2_base(root, USER, file)
