//! The committed SPIR-V (shaders/spv) must match its GLSL sources: where `glslc` exists this
//! recompiles every shader with scripts/compile-shaders.sh into a temporary directory and
//! compares bytes. Run `scripts/compile-shaders.sh` after editing a shader.

use std::path::{Path, PathBuf};
use std::process::Command;

fn spv_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    files.sort();
    files
}

#[test]
fn committed_spirv_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if Command::new("glslc").arg("--version").output().is_err() {
        eprintln!("glslc not found: not checking the committed SPIR-V");
        return;
    }
    let out = std::env::temp_dir().join(format!("sortnet-spv-{}", std::process::id()));
    let status = Command::new("sh")
        .arg(root.join("scripts/compile-shaders.sh"))
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "scripts/compile-shaders.sh failed");
    let committed = spv_files(&root.join("shaders/spv"));
    let fresh = spv_files(&out);
    let names = |v: &[PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(&committed),
        names(&fresh),
        "shaders/spv has missing or extra files"
    );
    for (c, f) in committed.iter().zip(&fresh) {
        assert!(
            std::fs::read(c).unwrap() == std::fs::read(f).unwrap(),
            "{} is stale: run scripts/compile-shaders.sh",
            c.display()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
