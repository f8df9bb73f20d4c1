//! `vulkan-radix` with its default pass scheme per variant (tests in `radix_suite`).
#![cfg(feature = "gpu")]

mod common;
mod radix_suite;

fn configure() {}
