//! Xoodoo (placeholder)
