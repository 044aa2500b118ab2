//! The PPE program's memory as the blade's main memory: a DMA to or from effective address `ea`
//! reads or writes the PPE process's guest address `ea`, which qemu-user keeps at host address
//! `guest_base + ea` (the launcher fixes the base with `-B`). The simulator is the process's
//! parent, so it may read and write it (`process_vm_readv`, `process_vm_writev`).

use crate::machine::memory::ExternalMemory;

pub struct ProcessMemory {
    pid: libc::pid_t,
    guest_base: u64,
    /// The guest's addresses end here (2^32 for a 32-bit PPE program).
    guest_end: u64,
}

impl ProcessMemory {
    pub fn new(pid: i32, guest_base: u64, bits: u32) -> ProcessMemory {
        let guest_end = if bits == 32 { 1 << 32 } else { u64::MAX };
        ProcessMemory { pid, guest_base, guest_end }
    }

    fn host(&self, ea: u64) -> *mut libc::c_void {
        self.guest_base.wrapping_add(ea) as usize as *mut libc::c_void
    }

    /// Bytes moved between `local` and the guest's `[ea, ea + len)`.
    fn transfer(&self, ea: u64, local: *mut u8, len: usize, write: bool) -> isize {
        let local = libc::iovec { iov_base: local.cast(), iov_len: len };
        let remote = libc::iovec { iov_base: self.host(ea), iov_len: len };
        // SAFETY: `local` is a live buffer of `len` bytes of this process; the remote side is
        // checked by the kernel, which fails the call rather than touch unmapped memory.
        unsafe {
            if write {
                libc::process_vm_writev(self.pid, &local, 1, &remote, 1, 0)
            } else {
                libc::process_vm_readv(self.pid, &local, 1, &remote, 1, 0)
            }
        }
    }
}

impl ExternalMemory for ProcessMemory {
    fn covers(&self, ea: u64, len: u32) -> bool {
        if ea.checked_add(len as u64).is_none_or(|end| end > self.guest_end) {
            return false;
        }
        // Read the first and the last byte of every page the range touches: a page is mapped
        // whole or not at all.
        const PAGE: u64 = 4096;
        let end = ea + (len.max(1) as u64);
        let mut at = ea;
        while at < end {
            let mut byte = 0u8;
            if self.transfer(at, &mut byte, 1, false) != 1 {
                return false;
            }
            at = (at / PAGE + 1) * PAGE;
        }
        let mut byte = 0u8;
        self.transfer(end - 1, &mut byte, 1, false) == 1
    }

    fn read(&self, ea: u64, out: &mut [u8]) {
        // `covers` checked the range when the command was issued; a PPE that unmapped it since
        // leaves zeros, as no program that waits for its DMA before unmapping can notice.
        if self.transfer(ea, out.as_mut_ptr(), out.len(), false) != out.len() as isize {
            out.fill(0);
        }
    }

    fn write(&self, ea: u64, data: &[u8]) {
        self.transfer(ea, data.as_ptr().cast_mut(), data.len(), true);
    }

    fn chip(&self) -> usize {
        // Linux places a page on the node of the thread that first touches it: the PPE program's
        // main thread, on chip 0's PPE.
        0
    }
}
