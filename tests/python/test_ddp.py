"""Training under torch.nn.parallel.DistributedDataParallel (gloo backend, 2 processes on this
machine), as users scale out (on Ascend hosts the same code runs with HCCL): a DCN layer whose
backward is our operator trains on different data per rank; after the steps every rank holds
bitwise the same parameters, and they match one process training on the whole batch (DDP averages
the ranks' gradients). Bounded: each rank has a timeout, and the test kills what is left."""
import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest
import torch

RANK_SCRIPT = textwrap.dedent("""
    import datetime, faulthandler, gc, json, os, sys
    import torch, torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    import ascend_dcn

    faulthandler.enable()   # an abort (e.g. at exit) prints every thread's Python stack to stderr
    torch.set_num_threads(1)
    rank, world, out_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(ascend_dcn.ModulatedDeformConv2dPack(4, 6, 3, padding=1),
                                   torch.nn.ReLU(), torch.nn.Conv2d(6, 2, 1))

    def batch(step):
        g = torch.Generator().manual_seed(100 + step)
        return torch.randn(4, 4, 7, 6, generator=g), torch.randn(4, 2, 7, 6, generator=g)   # global batch

    def train(net, steps, shard):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for step in range(steps):
            x, y = batch(step)
            x, y = shard(x), shard(y)
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
        return net

    if world == 1:       # the single-process baseline on the whole (global) batch
        net = train(model(), 3, lambda t: t)
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=120))
        ddp = train(DDP(model()), 3, lambda t: t[2 * rank: 2 * rank + 2])
        net = ddp.module
        # Tear down while the interpreter is fully alive: drop the DDP wrapper (its reducer holds the process
        # group; reference cycles would otherwise keep it, and rank 0's store server, until interpreter
        # finalisation), then destroy the group after both ranks are done.
        del ddp
        gc.collect()
        dist.barrier()
        dist.destroy_process_group()
    params = {k: v.detach().double().flatten().tolist() for k, v in net.state_dict().items()}
    with open(out_path, "w") as f:
        json.dump(params, f)
""")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_ranks(tmp_path, world, timeout=300):
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), TWIN_AIV_CORES="2",
               OMP_NUM_THREADS="1")
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    procs = [subprocess.Popen([sys.executable, str(script), str(r), str(world), str(tmp_path / f"w{world}_r{r}.json")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(world)]
    try:
        for p in procs:
            _, err = p.communicate(timeout=timeout)
            assert p.returncode == 0, err[-3000:]
    finally:
        for p in procs:          # never leave a rank behind (a hang ends here, not in CI)
            if p.poll() is None:
                p.kill()
                p.wait()
    result = []
    for r in range(world):
        with open(tmp_path / f"w{world}_r{r}.json") as f:
            result.append(json.load(f))
    return result


def test_ddp_gloo_two_ranks_agree(tmp_path):
    try:
        from ascend_dcn import _backend
        _backend.get_twin_opapi()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"twin operator libraries unavailable ({type(e).__name__}: {e})")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available in this torch build")
    rank0, rank1 = _run_ranks(tmp_path, 2)
    (single,) = _run_ranks(tmp_path, 1)
    assert rank0.keys() == rank1.keys() == single.keys()
    for name in rank0:
        assert rank0[name] == rank1[name], f"{name}: ranks disagree"           # bitwise
        got, want = torch.tensor(rank0[name]), torch.tensor(single[name])
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=f"{name} differs from one process")
    # the DCN layer's own parameters moved (its backward, our operator, ran on both ranks)
    start = _initial_state()
    dcn_weight = next(k for k in rank0 if k.startswith("0.") and k.endswith("weight") and "offset" not in k)
    assert torch.tensor(rank0[dcn_weight]).sub(start[dcn_weight]).abs().max() > 1e-4


def _initial_state():
    import ascend_dcn
    torch.manual_seed(0)
    net = torch.nn.Sequential(ascend_dcn.ModulatedDeformConv2dPack(4, 6, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.Conv2d(6, 2, 1))
    return {k: v.detach().double().flatten() for k, v in net.state_dict().items()}
