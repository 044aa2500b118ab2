//! The machine's contention mechanisms, one test each: how a lock line moves between atomic
//! caches (and what a lost reservation does), and how the PPE's guarded accesses are ordered.

use std::cell::Cell;
use std::rc::Rc;

use cellblade::machine::config::{load, preset_text};
use cellblade::machine::memory::reg;
use cellblade::Blade;

fn blade(set: &[&str]) -> Blade {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    Blade::new(load(preset_text("qs20").unwrap(), &set).unwrap(), false)
}

/// The line of the shared word, in XDRAM0.
const LINE: u64 = 1 << 20;

/// How long SPE `to`'s getllar of a line takes: held by SPE `from` (which took it first), or,
/// with `from` None, in no atomic cache.
fn getllar_ns(from: Option<usize>, to: usize, set: &[&str]) -> f64 {
    let mut b = blade(set);
    let took = Rc::new(Cell::new(false));
    if let Some(from) = from {
        let took = took.clone();
        b.spe(from, move |spu| async move {
            let l = spu.ls_alloc(128, 128)?;
            spu.mfc_getllar(l, LINE).await?;
            assert_eq!(spu.mfc_putllc(l, LINE).await?, 0);
            took.set(true);
            Ok(())
        })
        .unwrap();
    }
    let dt = Rc::new(Cell::new(0.0));
    let out = dt.clone();
    b.spe(to, move |spu| async move {
        let l = spu.ls_alloc(128, 128)?;
        // Long after the holder is done with the line.
        spu.compute(20_000).await;
        assert_eq!(took.get(), from.is_some());
        let t0 = spu.now();
        spu.mfc_getllar(l, LINE).await?;
        out.set((spu.now() - t0).as_ns());
        Ok(())
    })
    .unwrap();
    b.run().unwrap();
    dt.get()
}

#[test]
fn a_line_held_by_another_spe_is_snooped_pushed_home_and_read_again() {
    let cold = getllar_ns(None, 0, &[]);
    let handed = getllar_ns(Some(2), 0, &[]);
    let command_phase = 110.0 / 1.6; // command_phase_bus_cycles at the 1.6 GHz bus
                                     // Before the read a cold line needs come the snoop (a command phase) and the holder's push
                                     // (a command phase and more).
    assert!(handed > cold + 2.0 * command_phase, "hand-over {handed} ns, cold {cold} ns");
}

#[test]
fn a_line_handed_across_the_chips_pays_the_coherent_crossing_on_the_snoop_and_the_push() {
    let crossing = ["bif.crossing_latency_ns=150"];
    let (same0, same) = (getllar_ns(Some(2), 0, &[]), getllar_ns(Some(2), 0, &crossing));
    let (across0, across) = (getllar_ns(Some(8), 0, &[]), getllar_ns(Some(8), 0, &crossing));
    assert_eq!(same0, same, "one chip: no crossing");
    // The snoop reaches the holder on chip 1 (one crossing), and its push comes back to XDRAM0
    // as any coherent transfer across the BIF does (its command and its data cross: two more).
    assert!((across - across0 - 450.0).abs() < 1.0, "across the chips: {across0} ns -> {across} ns");
}

#[test]
fn a_putllc_after_another_spes_getllar_fails_and_the_retry_succeeds() {
    let mut b = blade(&[]);
    b.machine().mem.write_mem(LINE, &5u32.to_be_bytes());
    b.spe(0, |spu| async move {
        let l = spu.ls_alloc(128, 128)?;
        spu.mfc_getllar(l, LINE).await?;
        // SPE 1 asks for the line meanwhile: our reservation goes with it.
        spu.compute(20_000).await;
        spu.ls_write_u32(l, spu.ls_read_u32(l)? + 1)?;
        assert_eq!(spu.mfc_putllc(l, LINE).await?, 1, "the reservation was lost");
        spu.mfc_getllar(l, LINE).await?;
        assert_eq!(spu.ls_read_u32(l)?, 6, "SPE 1's store is seen");
        spu.ls_write_u32(l, 7)?;
        assert_eq!(spu.mfc_putllc(l, LINE).await?, 0);
        Ok(())
    })
    .unwrap();
    b.spe(1, |spu| async move {
        let l = spu.ls_alloc(128, 128)?;
        spu.compute(2_000).await;
        spu.mfc_getllar(l, LINE).await?;
        spu.ls_write_u32(l, spu.ls_read_u32(l)? + 1)?;
        assert_eq!(spu.mfc_putllc(l, LINE).await?, 0);
        Ok(())
    })
    .unwrap();
    b.run().unwrap();
}

/// (when SPE 8 saw the PPE's signal, when the PPE's load after it returned, the PPE's time
/// spent on the store, the PPE's time for the same load alone, the PPE's own part of a load),
/// in ns.
fn store_then_load() -> (f64, f64, f64, f64, f64) {
    let mut b = blade(&[]);
    let mmio = b.machine().p.ppe_mmio.as_ns();
    let seen = Rc::new(Cell::new(0.0));
    let s = seen.clone();
    b.spe(8, move |spu| async move {
        spu.spu_read_signal1().await?;
        s.set(spu.now().as_ns());
        Ok(())
    })
    .unwrap();
    let times = Rc::new(Cell::new((0.0, 0.0, 0.0)));
    let t = times.clone();
    b.ppe(move |ppe| async move {
        let t0 = ppe.now();
        ppe.mmio_read(0, reg::SPU_MBOX_STAT).await?;
        let alone = (ppe.now() - t0).as_ns();
        let t1 = ppe.now();
        ppe.mmio_write(8, reg::SIGNOTIFY1, 1).await?;
        let store = (ppe.now() - t1).as_ns();
        ppe.mmio_read(0, reg::SPU_MBOX_STAT).await?;
        t.set((ppe.now().as_ns(), store, alone));
        Ok(())
    });
    b.run().unwrap();
    let (done, store, alone) = times.get();
    (seen.get(), done, store, alone, mmio)
}

#[test]
fn a_ppe_store_is_posted_and_the_next_load_waits_until_it_is_performed() {
    let (seen, done, store, alone, mmio) = store_then_load();
    assert_eq!(store, 0.0, "a posted store costs the PPE nothing");
    // The load goes to the bus only once the store has crossed to chip 1 and been performed
    // there; then it takes its bus time as it does alone. The SPE's read of the signal is a
    // channel access after the store's arrival: allow its few ns.
    assert!(done >= seen - 5.0 + (alone - mmio), "load done at {done} ns, store seen at {seen} ns, load alone {alone} ns");
    assert!(done - alone > alone + 50.0, "the load after the store waited: {done} ns in all, {alone} ns alone");
}
