pub fn run() -> super::Outcome {
    Ok(())
}
