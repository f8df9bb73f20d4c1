//! The environment variables a user flips still work: `SORTNET_NO_GPU`, `SORTNET_NO_AVX512`,
//! `SORTNET_BACKEND` and `SORTNET_PROFILE`, and a Vulkan loader that finds no device; a
//! registry built from typed `Options` reads none of them. The process-wide registry reads
//! them once, so each case runs this test binary again as a child process with the
//! variables set (the configurations themselves are tested in one process in
//! `tests/backends.rs`, through `backend::Options`).

use std::process::Command;

use sortnet::backend::{self, Options, ProfileChoice, Registry};

/// Set in the child's environment; the child test does nothing without it.
const CHILD: &str = "SORTNET_TEST_ENVIRONMENT_CHILD";

/// Runs [`child_reports`] in a new process with `vars` set (and the user's own switches
/// cleared), and returns what it printed: one `key value...` line per fact.
fn child_with(vars: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args([
        "child_reports",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for var in [
        "SORTNET_NO_GPU",
        "SORTNET_NO_AVX512",
        "SORTNET_BACKEND",
        "SORTNET_PROFILE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("SORTNET_PROFILE", "0").env(CHILD, "1");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running the child test");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The line of `report` that starts with `key`, without the key.
fn fact<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{report}"))
}

/// The child's half: reports the backends, `auto`'s name, the profile state, and sorts
/// through `auto` (which must work whatever is switched off); then the same of registries
/// built from typed options, which the environment must not change.
#[test]
#[ignore = "runs only as the child process of the tests below"]
fn child_reports() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    // The harness has printed `test child_reports ... ` without a line break.
    println!();
    let names: Vec<&str> = backend::available().iter().map(|b| b.name()).collect();
    println!("backends {}", names.join(" "));
    println!("auto {}", backend::auto().name());
    println!("profile {}", sortnet::tuning::profile_state());
    let typed = typed_registry();
    let names: Vec<&str> = typed.available().iter().map(|b| b.name()).collect();
    println!("typed_backends {}", names.join(" "));
    println!("typed_auto {}", typed.auto().name());
    let saved = Registry::new(&Options {
        gpu: false,
        ..Options::default()
    });
    println!(
        "typed_profile {}",
        sortnet::tuning::registry_profile_state(&saved)
    );
    let mut keys = [2.5f32, -1.0, 0.0, -0.0];
    backend::auto().sort(&mut keys).unwrap();
    assert_eq!(
        keys.map(f32::to_bits),
        [
            (-1.0f32).to_bits(),
            (-0.0f32).to_bits(),
            0.0f32.to_bits(),
            2.5f32.to_bits()
        ]
    );
    // A backend forced by SORTNET_BACKEND may not do nibbles (radix does not).
    if backend::auto().supports(sortnet::Workload::Nibbles) {
        let mut words = vec![0x42badc0ffeed00d5u64; 100];
        backend::auto().sort_nibbles(&mut words).unwrap();
        assert!(words.iter().all(|&w| w == 0xffeedddcba542000));
    }
    println!("sorted yes");
}

/// The registry whose listing the child reports as `typed_backends`: the default options
/// but for the profile (none read), in either process.
fn typed_registry() -> Registry {
    Registry::new(&Options {
        profile: ProfileChoice::BuiltIn,
        ..Options::default()
    })
}

#[test]
fn no_gpu_and_no_avx512_take_those_backends_off_the_list() {
    let report = child_with(&[("SORTNET_NO_GPU", "1"), ("SORTNET_NO_AVX512", "1")]);
    let backends = fact(&report, "backends");
    assert!(
        backends.contains("scalar") && backends.contains("radix"),
        "{report}"
    );
    assert!(!backends.contains("vulkan-"), "{report}");
    assert!(!backends.contains("avx512"), "{report}");
    assert_eq!(fact(&report, "sorted"), "yes");
    // Typed options win: the child's typed registry lists what this process's does.
    let here: Vec<&str> = typed_registry()
        .available()
        .iter()
        .map(|b| b.name())
        .collect();
    assert_eq!(fact(&report, "typed_backends"), here.join(" "), "{report}");
    // `0` and the empty string switch nothing off.
    let report = child_with(&[("SORTNET_NO_AVX512", "0")]);
    let cpu_only = Options {
        gpu: false,
        profile: ProfileChoice::BuiltIn,
        ..Options::default()
    };
    let has_avx512 = Registry::new(&cpu_only).by_name("avx512").is_some();
    assert_eq!(
        fact(&report, "backends").contains("avx512"),
        has_avx512,
        "{report}"
    );
}

#[test]
fn no_vulkan_device_lists_no_gpu_backend_and_still_sorts() {
    let missing = "/nonexistent/sortnet-no-driver.json";
    let report = child_with(&[("VK_DRIVER_FILES", missing), ("VK_ICD_FILENAMES", missing)]);
    let backends = fact(&report, "backends");
    assert!(backends.contains("radix"), "{report}");
    assert!(
        !backends.contains("vulkan-"),
        "GPU backend listed without a device:\n{report}"
    );
    assert_eq!(fact(&report, "sorted"), "yes");
}

#[test]
fn sortnet_backend_forces_auto_and_a_bad_name_is_ignored() {
    let report = child_with(&[("SORTNET_BACKEND", "radix")]);
    assert_eq!(fact(&report, "auto"), "radix");
    assert_eq!(fact(&report, "sorted"), "yes");
    // A registry built from typed options (no `backend`) keeps `auto`.
    assert_eq!(fact(&report, "typed_auto"), "auto");
    let report = child_with(&[("SORTNET_BACKEND", "no-such-backend")]);
    assert_eq!(fact(&report, "auto"), "auto");
}

#[test]
fn sortnet_profile_names_the_file_or_switches_profiles_off() {
    let report = child_with(&[("SORTNET_PROFILE", "0")]);
    assert!(fact(&report, "profile").starts_with("off"), "{report}");
    let missing = std::env::temp_dir().join(format!("sortnet-no-profile-{}", std::process::id()));
    let report = child_with(&[("SORTNET_PROFILE", missing.to_str().unwrap())]);
    assert!(fact(&report, "profile").starts_with("none at"), "{report}");
    let dir = std::env::temp_dir().join(format!("sortnet-env-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corrupt = dir.join("profile.txt");
    std::fs::write(&corrupt, "not a profile\n").unwrap();
    let report = child_with(&[("SORTNET_PROFILE", corrupt.to_str().unwrap())]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(fact(&report, "profile").starts_with("ignored"), "{report}");
    // A registry built from typed options (the saved profile) does not read that file.
    let typed = fact(&report, "typed_profile");
    assert!(!typed.contains(corrupt.to_str().unwrap()), "{report}");
    assert_eq!(fact(&report, "sorted"), "yes");
}
