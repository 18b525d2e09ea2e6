//! The handler-shape fingerprint sealed into every state: a redeploy that changes the steps,
//! the kept bindings or the branch structure makes older states `InvalidState` instead of
//! resuming them into the wrong step.

/// 128 bits (two FNV-1a 64 passes with different offsets) over the macro version, the handler
/// name, the step count and the shape description, as hex.
pub fn of(name: &str, steps: u32, shape: &[String]) -> String {
    let text = format!(
        "mrtr-handler/{}/{name}/{steps}/{}",
        env!("CARGO_PKG_VERSION"),
        shape.join(";")
    );
    let a = fnv1a(text.as_bytes(), 0xcbf2_9ce4_8422_2325);
    let b = fnv1a(text.as_bytes(), 0x6c62_272e_07bb_0142);
    format!("{a:016x}{b:016x}")
}

fn fnv1a(bytes: &[u8], offset: u64) -> u64 {
    bytes.iter().fold(offset, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_changed_shape_changes_the_fingerprint() {
        let one = super::of("deploy", 2, &["A1:s1.ok".into(), "A2:s2.ticket".into()]);
        let other = super::of("deploy", 2, &["A1:s1.ok".into(), "A2:s2.notes".into()]);
        assert_eq!(one.len(), 32);
        assert_ne!(one, other);
        assert_eq!(
            one,
            super::of("deploy", 2, &["A1:s1.ok".into(), "A2:s2.ticket".into()])
        );
    }
}
