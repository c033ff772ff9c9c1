"""One emulation, from namespaces to result, and its clean-up.

Order (each step's failure stops the run and cleans up):

1. two namespaces; the link emulator's process creates a TUN device in each
   and says ``ready``;
2. sysctls set in both namespaces and read back (a value the kernel did not
   take is an error); devices up with the packet size as MTU; one address
   pair and host route pair per flow, carrying the per-flow options;
3. the socket sampler in the sender namespace; the receivers, then (at each
   flow's start) the senders: the built-in bulk pair or the user's commands;
4. at the end of the duration (or when every sender finished): senders,
   receivers and sampler stopped, counters read, the emulator stopped (it
   writes its report), namespaces deleted.

Clean-up (:meth:`Run.cleanup`) runs whatever happened: normal end, an
error, Ctrl-C or SIGTERM to the controlling process, a crashed workload.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from reorderlab.scenario import Scenario

from .kernel import RECEIVER_NET, SENDER_NET, KernelPlan
from .netns import (
    EmulationError,
    Namespaces,
    in_namespace,
    ip,
    python_in,
    sweep_stale,
)

#: TCP port every receiver listens on (each flow has its own addresses).
PORT = 5001
#: Seconds a receiver gets to start listening.
LISTEN_TIMEOUT = 10.0
#: The emulator keeps running at most this long past the duration.
SAFETY_MARGIN = 120.0


@dataclass
class Commands:
    """The user's sender and receiver commands (``None``: the built-in pair).
    ``{sender}``, ``{receiver}``, ``{port}``, ``{flow}`` and ``{duration}``
    in an argument are replaced by the flow's values; the same values are in
    the environment as ``RL_SENDER_ADDR``, ``RL_RECEIVER_ADDR``, ``RL_PORT``,
    ``RL_FLOW`` and ``RL_DURATION``."""

    sender: list[str] | None = None
    receiver: list[str] | None = None

    @property
    def user(self) -> bool:
        return self.sender is not None


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path | None = None
    #: must exit with status 0 (a workload); else it is stopped by us
    checked: bool = True


@dataclass
class Outcome:
    """What a finished run gathered, before it is turned into a result."""

    t0_ns: int
    end_ns: int
    kernel: dict[str, dict[str, str]]
    link: dict[str, Any]
    samples: list[dict[str, Any]]
    counters: dict[str, dict[str, int]]
    receivers: list[dict[str, Any] | None]
    senders: list[dict[str, Any] | None]
    load: dict[str, list[float]] = field(default_factory=dict)


def _substitute(argv: Sequence[str], values: dict[str, str]) -> list[str]:
    out = []
    for arg in argv:
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


class Run:
    """One emulation of ``sc`` configured by ``kp`` in directory ``work``."""

    def __init__(
        self,
        sc: Scenario,
        seed: int,
        kp: KernelPlan,
        work: Path,
        commands: Commands,
        *,
        pcap_snaplen: int,
        realtime: bool,
        log: Callable[[str], None],
    ) -> None:
        self.sc, self.seed, self.kp, self.work = sc, seed, kp, work
        self.commands = commands
        self.pcap_snaplen = pcap_snaplen
        self.realtime = realtime
        self.log = log
        self.ns = Namespaces()
        pid = os.getpid()
        self.tuns = (f"rlS{pid}", f"rlR{pid}")
        self.link: subprocess.Popen[bytes] | None = None
        self.procs: list[Proc] = []
        self.sampler: subprocess.Popen[bytes] | None = None
        self.sampler_out: IO[bytes] | None = None

    # -- set-up ---------------------------------------------------------------

    def start(self) -> dict[str, dict[str, str]]:
        sweep_stale()
        self.ns.create()
        self._start_link()
        kernel = {
            "sender": self._sysctls(self.ns.sender, self.kp.sysctls["sender"]),
            "receiver": self._sysctls(self.ns.receiver, self.kp.sysctls["receiver"]),
        }
        self._configure_devices()
        self._start_sampler()
        self._start_receivers()
        return kernel

    def _start_link(self) -> None:
        cfg_path, report = self.work / "link-config.json", self.work / "link-report.json"
        flows = [{"src": f.src, "dst": f.dst} for f in self.kp.flows]
        cfg: dict[str, Any] = {
            "scenario": self.sc.to_dict(),
            "seed": self.seed,
            "sender": {"tun": self.tuns[0], "netns": f"/run/netns/{self.ns.sender}"},
            "receiver": {"tun": self.tuns[1], "netns": f"/run/netns/{self.ns.receiver}"},
            "flows": flows,
            "max_packet": self.kp.mtu,
            "realtime": self.realtime,
            "max_seconds": self.sc.duration + SAFETY_MARGIN,
        }
        if self.pcap_snaplen > 0:
            cfg["pcap"] = {
                "sender": str(self.work / "sender.pcap"),
                "receiver": str(self.work / "receiver.pcap"),
                "snaplen": self.pcap_snaplen,
            }
        cfg_path.write_text(json.dumps(cfg), encoding="utf-8")
        with (self.work / "link.log").open("wb") as link_log:
            self.link = subprocess.Popen(
                [sys.executable, "-m", "reorderlab._emu.link", str(cfg_path), str(report)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=link_log,
                start_new_session=True,
            )
        assert self.link.stdout is not None
        line = self.link.stdout.readline().decode(errors="replace").strip()
        if line != "ready":
            self.link.wait(timeout=10)
            raise EmulationError(f"link emulator: {self._link_error() or 'did not start'}")

    def _link_error(self) -> str:
        text = (self.work / "link.log").read_text(errors="replace").strip().splitlines()
        return text[-1].removeprefix("error: ") if text else ""

    def _sysctls(self, ns: str, values: dict[str, str]) -> dict[str, str]:
        """Set ``net.ipv4.*`` values in ``ns`` (IPv6 off) and read them back."""
        wanted = {f"net.ipv4.{k}": v for k, v in values.items()}
        wanted["net.ipv6.conf.all.disable_ipv6"] = "1"
        wanted["net.ipv6.conf.default.disable_ipv6"] = "1"
        args = [f"{k}={v}" for k, v in wanted.items()]
        proc = subprocess.run(
            python_in(ns, "nsproc", "sysctl", *args), capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise EmulationError(f"cannot set the kernel's TCP options: {proc.stderr.strip()}")
        got: dict[str, str] = json.loads(proc.stdout)
        for k, v in wanted.items():
            if got.get(k) != v:
                raise EmulationError(f"{k}: the kernel kept {got.get(k)!r}, asked for {v!r}")
        return {k.removeprefix("net.ipv4."): v for k, v in got.items()}

    def _configure_devices(self) -> None:
        sides = (
            (
                self.ns.sender,
                self.tuns[0],
                RECEIVER_NET,
                [(f.src, f.dst, f.sender_route) for f in self.kp.flows],
            ),
            (
                self.ns.receiver,
                self.tuns[1],
                SENDER_NET,
                [(f.dst, f.src, f.receiver_route) for f in self.kp.flows],
            ),
        )
        for ns, tun, peer_net, hosts in sides:
            ip("-n", ns, "link", "set", "dev", tun, "mtu", str(self.kp.mtu), "up")
            for own, _, _ in hosts:
                ip("-n", ns, "addr", "add", f"{own}/32", "dev", tun)
            ip("-n", ns, "route", "add", peer_net, "dev", tun)
            for own, peer, options in hosts:
                ip("-n", ns, "route", "add", f"{peer}/32", "dev", tun, "src", own, *options)

    def _start_sampler(self) -> None:
        self.sampler_out = (self.work / "tcpinfo.jsonl").open("wb")
        self.sampler = subprocess.Popen(
            python_in(self.ns.sender, "tcpinfo", str(self.sc.record.interval)),
            stdin=subprocess.PIPE,
            stdout=self.sampler_out,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _values(self, i: int) -> dict[str, str]:
        f = self.kp.flows[i]
        return {
            "sender": f.src,
            "receiver": f.dst,
            "port": str(PORT),
            "flow": str(i),
            "duration": f"{self.sc.duration:g}",
        }

    def _spawn(self, name: str, argv: list[str], i: int, *, pipe: bool = False) -> Proc:
        log = self.work / f"{name}.log"
        env = dict(os.environ)
        env.update({f"RL_{k.upper()}": v for k, v in self._values(i).items()})
        env["RL_SENDER_ADDR"], env["RL_RECEIVER_ADDR"] = (
            env.pop("RL_SENDER"),
            env.pop("RL_RECEIVER"),
        )
        with log.open("wb") as err:
            popen = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE if pipe else err,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def _start_receivers(self) -> None:
        for i, f in enumerate(self.kp.flows):
            name = f"receiver{i}"
            if self.commands.receiver is not None:
                argv = in_namespace(
                    self.ns.receiver, _substitute(self.commands.receiver, self._values(i))
                )
                self._spawn(name, argv, i)
                continue
            report = str(self.work / f"{name}.json")
            argv = python_in(self.ns.receiver, "workload", "recv", f.dst, str(PORT), report)
            proc = self._spawn(name, argv, i, pipe=True)
            self._wait_listening(proc)
        if self.commands.receiver is not None:
            self._wait_user_listeners()

    def _wait_listening(self, proc: Proc) -> None:
        assert proc.popen.stdout is not None
        line = proc.popen.stdout.readline().decode(errors="replace").strip()
        if line != "listening":
            raise EmulationError(f"{proc.name} did not start: {self._tail(proc)}")

    def _wait_user_listeners(self) -> None:
        """Until a socket listens in the receiver namespace (or a timeout)."""
        deadline = time.monotonic() + LISTEN_TIMEOUT
        while time.monotonic() < deadline:
            self._check_processes()
            out = subprocess.run(
                python_in(self.ns.receiver, "nsproc", "listening"),
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
            if out.isdigit() and int(out) > 0:
                return
            time.sleep(0.1)
        raise EmulationError(f"no receiver command listened within {LISTEN_TIMEOUT:g} s")

    def _tail(self, proc: Proc) -> str:
        if proc.log is None or not proc.log.exists():
            return f"exit status {proc.popen.poll()}"
        lines = proc.log.read_text(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {proc.popen.poll()}"

    # -- the run ------------------------------------------------------------

    def drive(self) -> tuple[int, int]:
        """Start the senders, wait for the end; returns (t0, end) in ns."""
        lead = 0.5  # the built-in sender starts early and waits for its time
        t0 = time.monotonic_ns() + int(lead * 1e9)
        pending = sorted(range(len(self.kp.flows)), key=lambda i: self.kp.flows[i].start)
        end = t0 + int(self.sc.duration * 1e9)
        while True:
            now = time.monotonic_ns()
            while pending and self._sender_due(pending[0], t0, now):
                self._start_sender(pending.pop(0), t0)
            self._check_processes()
            if now >= end or (not pending and self._all_exited()):
                return t0, min(now, end)
            time.sleep(0.05)

    def _sender_due(self, i: int, t0: int, now: int) -> bool:
        lead = 0.5e9 if self.commands.sender is None else 0.0
        return now >= t0 + int(self.kp.flows[i].start * 1e9) - lead

    def _start_sender(self, i: int, t0: int) -> Proc:
        f = self.kp.flows[i]
        name = f"sender{i}"
        if self.commands.sender is not None:
            argv = in_namespace(self.ns.sender, _substitute(self.commands.sender, self._values(i)))
            return self._spawn(name, argv, i)
        at = t0 + int(f.start * 1e9)
        total = f.segments * self.payload()
        report = str(self.work / f"{name}.json")
        argv = python_in(
            self.ns.sender, "workload", "send", f.src, f.dst, str(PORT), str(total), report, str(at)
        )
        return self._spawn(name, argv, i)

    def payload(self) -> int:
        """Payload bytes per segment of the devices' MTU (IPv4 + TCP headers,
        plus the timestamp option when it is on)."""
        ts = self.kp.sysctls["sender"].get("tcp_timestamps", "1") != "0"
        return self.kp.mtu - 40 - (12 if ts else 0)

    def _all_exited(self) -> bool:
        """Every sender and receiver finished by itself (finite flows: the
        built-in receiver exits when its sender closes; a user's server that
        runs forever keeps the run going to its duration)."""
        return all(p.popen.poll() is not None for p in self.procs)

    def _check_processes(self) -> None:
        """A workload that failed, or the emulator gone: an error."""
        if self.link is not None and self.link.poll() is not None:
            raise EmulationError(
                f"link emulator exited: {self._link_error() or self.link.returncode}"
            )
        for p in self.procs:
            code = p.popen.poll()
            if p.checked and code not in (None, 0):
                raise EmulationError(f"{p.name} exited with status {code}: {self._tail(p)}")

    # -- the end ------------------------------------------------------------

    def finish(self, t0: int, end: int, kernel: dict[str, dict[str, str]]) -> Outcome:
        senders = [p for p in self.procs if p.name.startswith("sender")]
        receivers = [p for p in self.procs if p.name.startswith("receiver")]
        self._stop(senders)
        time.sleep(0.2)  # the last segments reach the receivers
        self._stop(receivers)
        self._stop_sampler()
        counters = {
            "sender": self._counters(self.ns.sender),
            "receiver": self._counters(self.ns.receiver),
        }
        link = self._stop_link()
        n = len(self.kp.flows)
        return Outcome(
            t0_ns=t0,
            end_ns=end,
            kernel=kernel,
            link=link,
            samples=self._read_samples(),
            counters=counters,
            receivers=[self._report(f"receiver{i}") for i in range(n)],
            senders=[self._report(f"sender{i}") for i in range(n)],
        )

    def _stop(self, procs: list[Proc]) -> None:
        for p in procs:
            p.checked = False
            if p.popen.poll() is None:
                p.popen.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.popen.wait(timeout=3)
            except subprocess.TimeoutExpired:
                p.popen.kill()
                p.popen.wait()

    def _stop_sampler(self) -> None:
        if self.sampler is None:
            return
        self.sampler.send_signal(signal.SIGTERM)
        try:
            self.sampler.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.sampler.kill()
            self.sampler.wait()
        if self.sampler_out is not None:
            self.sampler_out.close()
        self.sampler = None

    def _counters(self, ns: str) -> dict[str, int]:
        proc = subprocess.run(
            python_in(ns, "nsproc", "counters"), capture_output=True, text=True, check=False
        )
        return json.loads(proc.stdout) if proc.returncode == 0 else {}

    def _stop_link(self) -> dict[str, Any]:
        assert self.link is not None and self.link.stdin is not None
        try:
            self.link.stdin.write(b"stop\n")
            self.link.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.link.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.link.kill()
            self.link.wait()
        code = self.link.returncode
        self.link = None
        report = self.work / "link-report.json"
        if code != 0 or not report.exists():
            raise EmulationError(f"link emulator failed: {self._link_error() or code}")
        data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
        return data

    def _read_samples(self) -> list[dict[str, Any]]:
        path = self.work / "tcpinfo.jsonl"
        if not path.exists():
            return []
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by the sampler's stop
        return rows

    def _report(self, name: str) -> dict[str, Any] | None:
        path = self.work / f"{name}.json"
        if not path.exists():
            return None
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def cleanup(self) -> None:
        """Stop every process and delete the namespaces; never raises."""
        for p in self.procs:
            if p.popen.poll() is None:
                p.popen.kill()
        for p in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.popen.wait(timeout=5)
        for proc in (self.sampler, self.link):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        if self.sampler_out is not None:
            self.sampler_out.close()
        try:
            self.ns.destroy()
        except Exception as exc:  # clean-up must go on; say what is left
            print(f"warning: namespace clean-up: {exc}", file=sys.stderr)
