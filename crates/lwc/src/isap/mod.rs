//! placeholder: filled by the isap work
