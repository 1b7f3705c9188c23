//! The permutations under the modes, public so benchmarks and experiments can call
//! them with any round count.

pub mod ascon;
pub mod keccak_p400;
pub mod xoodoo;
