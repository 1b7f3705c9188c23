//! Keccak-p[400] (placeholder)
