//! What the server reads at the edge and the core never does: the wall clock and the
//! operating system's randomness.
/// The wall clock, in milliseconds since the epoch (the server owns time; the core never reads it).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A new workspace's id seed: random, and below 2^53 so it survives a JSON number in any client.
pub fn random_seed() -> u64 {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the operating system gives random bytes");
    u64::from_le_bytes(b) >> 11
}
