//! ui tests live in tests/ui.rs
