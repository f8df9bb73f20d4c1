//! Without a Vulkan device (or with the GPU switched off) the GPU backends are absent, never a
//! crash, and every workload still sorts on the CPU. Each case runs the tool in its own
//! process, because the registry is built once per process.

use std::io::Write;
use std::process::{Command, Stdio};

/// The tool with the Vulkan loader pointed at a driver list that does not exist: the loader
/// (if installed) finds no device.
fn sortnet_without_device() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sortnet"));
    cmd.env("VK_DRIVER_FILES", "/nonexistent/sortnet-no-driver.json")
        .env("VK_ICD_FILENAMES", "/nonexistent/sortnet-no-driver.json")
        .env("SORTNET_PROFILE", "0")
        .env_remove("SORTNET_BACKEND");
    cmd
}

fn backends_listing(mut cmd: Command) -> String {
    let out = cmd.arg("backends").output().expect("running sortnet");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn no_vulkan_device_lists_no_gpu_backend() {
    let listing = backends_listing(sortnet_without_device());
    assert!(listing.contains("radix"), "{listing}");
    assert!(
        !listing.contains("vulkan-"),
        "GPU backend listed without a device:\n{listing}"
    );
}

#[test]
fn sortnet_no_gpu_lists_no_gpu_backend() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sortnet"));
    cmd.env("SORTNET_NO_GPU", "1").env("SORTNET_PROFILE", "0");
    let listing = backends_listing(cmd);
    assert!(listing.contains("scalar"), "{listing}");
    assert!(!listing.contains("vulkan-"), "{listing}");
}

#[test]
fn no_vulkan_device_still_sorts_on_the_cpu() {
    let mut child = sortnet_without_device()
        .args(["sort", "--type", "f32", "--format", "text", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("running sortnet");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"2.5\n-1\n0\n-0\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<f32> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [
            (-1.0f32).to_bits(),
            (-0.0f32).to_bits(),
            0.0f32.to_bits(),
            2.5f32.to_bits()
        ]
    );
}
