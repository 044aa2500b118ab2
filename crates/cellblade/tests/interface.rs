//! The SPE interface's ordering and status forms, each in a scenario where the wrong behaviour
//! would show in the bytes or the returned status: the barrier forms `mfc_getb`/`mfc_putb`, the
//! queue-wide `mfc_barrier`, tag status "any" and "immediate", signal register 2, and the
//! mailbox's interleaving error in a collective.

use std::cell::RefCell;
use std::rc::Rc;

use cellblade::coll::data::{Dtype, ReduceOp};
use cellblade::coll::schedule::{Op, Schedule, Via, Xfer};
use cellblade::coll::{measure_schedule, Setup};
use cellblade::machine::config::{load, preset_text};
use cellblade::machine::memory::reg;
use cellblade::{Blade, Spu};

fn blade() -> Blade {
    Blade::new(load(preset_text("qs20").unwrap(), &[]).unwrap(), false)
}

const SIZE: u32 = 16384;

/// Simulated ticks from the first issue until SPE 0's tag wait returns, for a sequence of 16 KB
/// transfers on XDRAM0 (all tag 1, except after `Barrier`, tag 2).
#[derive(Clone, Copy)]
enum Cmd {
    Put,
    Get,
    Getb,
    Putb,
    Barrier,
}

fn ticks(seq: &'static [Cmd]) -> u64 {
    let mut b = blade();
    let x = b.machine().mem.xdram_ea(0, 1 << 20);
    let t = Rc::new(RefCell::new(0));
    let out = t.clone();
    b.spe(0, move |spu: Spu| async move {
        let buf = [spu.ls_alloc(SIZE, 128)?, spu.ls_alloc(SIZE, 128)?];
        let t0 = spu.now();
        let mut tag = 1;
        for (i, c) in seq.iter().enumerate() {
            let lsa = buf[i % 2];
            match c {
                Cmd::Put => spu.mfc_put(lsa, x, SIZE, tag).await?,
                Cmd::Get => spu.mfc_get(lsa, x, SIZE, tag).await?,
                Cmd::Getb => spu.mfc_getb(lsa, x, SIZE, tag).await?,
                Cmd::Putb => spu.mfc_putb(lsa, x, SIZE, tag).await?,
                Cmd::Barrier => {
                    spu.mfc_barrier(7).await?;
                    tag = 2;
                }
            }
        }
        spu.mfc_write_tag_mask(0b110);
        spu.mfc_read_tag_status_all().await?;
        *out.borrow_mut() = (spu.now() - t0).0;
        Ok(())
    })
    .unwrap();
    b.run().unwrap();
    let v = *t.borrow();
    v
}

/// A command held behind a barrier starts when the earlier one completes: its own time alone,
/// less the tag-status update the earlier one no longer needs and the issue it hides behind
/// the earlier one's flight. Without the barrier the two overlap and finish sooner.
#[test]
fn barrier_forms_start_a_command_when_the_earlier_ones_complete() {
    let p = cellblade::machine::config::Params::resolve(&load(preset_text("qs20").unwrap(), &[]).unwrap());
    let hidden = p.tag_update.0 + p.mfc_issue.0;
    let (put, get) = (ticks(&[Cmd::Put]), ticks(&[Cmd::Get]));
    assert_eq!(ticks(&[Cmd::Put, Cmd::Getb]), put + get - hidden);
    assert_eq!(ticks(&[Cmd::Get, Cmd::Putb]), get + put - hidden);
    // mfc_barrier holds a command of another tag the same way (the barrier's own issue is hidden too).
    assert_eq!(ticks(&[Cmd::Put, Cmd::Barrier, Cmd::Get]), put + get - hidden);
    assert!(ticks(&[Cmd::Put, Cmd::Get]) < put + get - hidden);
    assert!(ticks(&[Cmd::Get, Cmd::Put]) < get + put - hidden);
    // A command after a getb waits for what the getb waited for.
    assert_eq!(ticks(&[Cmd::Put, Cmd::Getb, Cmd::Get]), ticks(&[Cmd::Put, Cmd::Barrier, Cmd::Get, Cmd::Get]));
}

#[test]
fn tag_status_any_and_immediate() {
    let mut b = blade();
    let x = b.machine().mem.xdram_ea(0, 1 << 20);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    b.spe(0, move |spu: Spu| async move {
        let big = spu.ls_alloc(SIZE, 128)?;
        let small = spu.ls_alloc(128, 128)?;
        spu.mfc_write_tag_mask((1 << 4) | (1 << 9));
        let before = spu.mfc_read_tag_status_immediate();
        spu.mfc_get(small, x, 16, 4).await?;
        spu.mfc_get(big, x, SIZE, 9).await?;
        let issued = spu.mfc_read_tag_status_immediate();
        let any = spu.mfc_read_tag_status_any().await?;
        let after_any = spu.mfc_read_tag_status_immediate();
        let all = spu.mfc_read_tag_status_all().await?;
        s.borrow_mut().extend([before, issued, any, after_any, all]);
        Ok(())
    })
    .unwrap();
    b.run().unwrap();
    // Nothing pending: both groups complete; both pending: none; "any" returns when the small
    // get's group completes, while the 16 KB one behind it is still going; "all" returns both.
    assert_eq!(*seen.borrow(), vec![(1 << 4) | (1 << 9), 0, 1 << 4, 1 << 4, (1 << 4) | (1 << 9)]);
}

#[test]
fn signal_register_2_is_its_own_register() {
    let mut b = blade();
    let got = Rc::new(RefCell::new(Vec::new()));
    b.spe(1, move |spu: Spu| async move {
        let scratch = spu.ls_alloc(16, 16)?;
        spu.mfc_write_tag_mask(1);
        for (register, v) in [(reg::SIGNOTIFY2, 5u32), (reg::SIGNOTIFY1, 7)] {
            let ea = Spu::mmio_ea(0, register);
            let lsa = scratch + (ea % 16) as u32;
            spu.ls_write_u32(lsa, v)?;
            spu.mfc_sndsig(lsa, ea, 0).await?;
            spu.mfc_read_tag_status_all().await?;
        }
        Ok(())
    })
    .unwrap();
    let g = got.clone();
    b.spe(0, move |spu: Spu| async move {
        let two = spu.spu_read_signal2().await?;
        let one = spu.spu_read_signal1().await?;
        g.borrow_mut().extend([two, one]);
        Ok(())
    })
    .unwrap();
    b.run().unwrap();
    assert_eq!(*got.borrow(), vec![5, 7]);
    // The PPE's library call names the register; there is no third one.
    let mut b = blade();
    b.ppe(|ppe| async move {
        let e = ppe.spe_signal_write(0, 3, 1, cellblade::ppe::Access::Mmio).await.unwrap_err();
        assert_eq!(e.to_string(), "signal register 3 does not exist: allowed 1 or 2");
        Ok(())
    });
    b.run().unwrap();
}

#[test]
fn two_addresses_interleaved_in_a_mailbox_are_an_error() {
    // Ranks 1 and 2 both announce a 64-bit address to rank 0 through its mailbox in one round:
    // their two halves interleave, which the receiver cannot undo (seed 000 §3.2).
    let mut s = Schedule::new("test.interleaved", Op::Allgather, 3, 0, 48);
    s.round(vec![Xfer::copy(0, 1, 16, 16).via(Via::Mailbox), Xfer::copy(0, 2, 32, 16).via(Via::Mailbox)]);
    let file = load(preset_text("qs20").unwrap(), &[]).unwrap();
    let setup = Setup { root: 0, placement: vec![0, 1, 2], dtype: Dtype::Int32, rop: ReduceOp::Sum, iterations: 1 };
    let e = measure_schedule(&file, &s, &setup).unwrap_err().to_string();
    assert!(e.contains("spe 0: two 64-bit addresses interleaved in its inbound mailbox"), "{e}");
    // One announcement into the mailbox is fine (rounds are not barriers: a second sender in a
    // later round would interleave just the same).
    let mut ok = Schedule::new("test.one_sender", Op::Allgather, 3, 0, 48);
    ok.round(vec![Xfer::copy(0, 1, 16, 16).via(Via::Mailbox)]);
    if let Err(e) = measure_schedule(&file, &ok, &setup) {
        panic!("{e}");
    }
}
