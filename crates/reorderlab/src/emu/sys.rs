//! The operating-system calls of the emulator (Linux only): TUN devices
//! created inside network namespaces, the monotonic clock, waiting on
//! several descriptors with a nanosecond timeout, real-time scheduling and
//! the stop signal.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by SIGTERM: the emulator stops at its next wake-up.
static STOP: AtomicBool = AtomicBool::new(false);

fn check(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(ret)
}

fn clock(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec; the clocks used always exist.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC in nanoseconds (the same in every network namespace).
pub fn monotonic_ns() -> u64 {
    clock(libc::CLOCK_MONOTONIC)
}

/// CLOCK_REALTIME in nanoseconds (for pcap time stamps).
pub fn realtime_ns() -> u64 {
    clock(libc::CLOCK_REALTIME)
}

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags.
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// A TUN device (IPv4 packets without a header, `IFF_NO_PI`), non-blocking.
/// It disappears when this descriptor is closed (not persistent), so a
/// crashed emulator leaves no device behind.
#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    pub name: String,
}

impl Tun {
    /// Create TUN device `name` inside the network namespace bound at
    /// `netns` (e.g. `/run/netns/NAME`), or in the current one.
    pub fn create(name: &str, netns: Option<&str>) -> io::Result<Tun> {
        if name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "device name {name:?} longer than {} bytes",
                    libc::IFNAMSIZ - 1
                ),
            ));
        }
        let Some(path) = netns else {
            return Self::open(name);
        };
        let home = File::open("/proc/thread-self/ns/net")?;
        let target =
            File::open(path).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
        // SAFETY: setns on valid namespace descriptors; it affects this
        // thread only, and the original namespace is restored below.
        check(
            unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) },
            "setns",
        )?;
        let tun = Self::open(name);
        // SAFETY: as above.
        let back = unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) };
        check(back, "setns back")?;
        tun
    }

    fn open(name: &str) -> io::Result<Tun> {
        let path = CString::new("/dev/net/tun").expect("no NUL");
        // SAFETY: a valid C string; the result is checked.
        let raw = check(
            unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) },
            "/dev/net/tun",
        )?;
        // SAFETY: `raw` is a descriptor we own from here on.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
            _pad: [0; 22],
        };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads a `struct ifreq`, which `IfReq` lays out.
        check(
            unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req) },
            "TUNSETIFF",
        )?;
        set_nonblocking(fd.as_raw_fd())?;
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Read one packet; `None` when none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        read_fd(self.raw(), buf)
    }

    /// Write one packet.
    pub fn write(&self, packet: &[u8]) -> io::Result<()> {
        // SAFETY: writes from a valid slice.
        let n = unsafe { libc::write(self.raw(), packet.as_ptr().cast(), packet.len()) };
        check(n as libc::c_int, "TUN write").map(|_| ())
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let flags = check(unsafe { libc::fcntl(fd, libc::F_GETFL) }, "fcntl")?;
    // SAFETY: as above.
    check(
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) },
        "fcntl",
    )?;
    Ok(())
}

/// Read from a descriptor; `None` on EAGAIN, `Some(0)` at end of file.
pub fn read_fd(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: reads into a valid mutable slice.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n >= 0 {
        return Ok(Some(n as usize));
    }
    let e = io::Error::last_os_error();
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
        _ => Err(e),
    }
}

/// Wait until one of `fds` is readable or `timeout_ns` passed (forever if
/// `None`); `ready[i]` tells whether `fds[i]` is readable (or hung up).
pub fn wait(fds: &[RawFd], timeout_ns: Option<u64>, ready: &mut [bool]) -> io::Result<()> {
    const MAX: usize = 4;
    assert!(fds.len() <= MAX, "wait on at most {MAX} descriptors");
    let idle = libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    };
    let mut polls = [idle; MAX];
    for (p, &fd) in polls.iter_mut().zip(fds) {
        p.fd = fd;
        p.events = libc::POLLIN;
    }
    let ts = timeout_ns.map(|ns| libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    });
    let tsp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `polls` and `tsp` are valid for the call.
    let n = unsafe {
        libc::ppoll(
            polls.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            tsp,
            std::ptr::null(),
        )
    };
    for (r, p) in ready.iter_mut().zip(&polls) {
        *r = n > 0 && p.revents != 0;
    }
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// Run this thread under SCHED_FIFO at `priority` and with a 1 ns timer
/// slack, so that its wake-ups are not delayed behind the builds of a busy
/// machine (the kernel still throttles real-time threads to 95 % of a CPU),
/// and lock the process's memory, so that a page reclaimed under memory
/// pressure is not faulted back in the middle of a packet's handling.
/// Returns whether the real-time policy was granted (it needs root).
pub fn set_realtime(priority: i32) -> bool {
    // SAFETY: prctl with an integer argument; mlockall takes flags only
    // (a failure leaves the memory unlocked, which is only slower).
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
        libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE);
    }
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: valid parameters for the calling thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// SIGTERM asks the emulator to stop (it then writes its report); SIGINT is
/// ignored: the controlling process stops the emulator after a Ctrl-C, once
/// the workload is gone.
pub fn install_stop_signal() {
    // SAFETY: installs an async-signal-safe handler (an atomic store).
    unsafe {
        libc::signal(
            libc::SIGTERM,
            on_stop_signal as *const () as libc::sighandler_t,
        );
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
}

/// Whether SIGTERM arrived.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_clock_advances_and_wait_times_out() {
        let a = monotonic_ns();
        let mut ready = [false];
        // A pipe with nothing in it: the wait ends by its timeout.
        let mut fds = [0; 2];
        // SAFETY: a valid array of two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        wait(&[fds[0]], Some(2_000_000), &mut ready).unwrap();
        assert!(!ready[0]);
        assert!(monotonic_ns() - a >= 2_000_000);
        // SAFETY: writes one byte to the pipe we made.
        assert_eq!(unsafe { libc::write(fds[1], [1u8].as_ptr().cast(), 1) }, 1);
        wait(&[fds[0]], None, &mut ready).unwrap();
        assert!(ready[0]);
        let mut buf = [0u8; 4];
        set_nonblocking(fds[0]).unwrap();
        assert_eq!(read_fd(fds[0], &mut buf).unwrap(), Some(1));
        assert_eq!(read_fd(fds[0], &mut buf).unwrap(), None);
        // SAFETY: closing the descriptors we made.
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
    }
}
