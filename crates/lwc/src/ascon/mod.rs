//! placeholder: filled by the ascon work
