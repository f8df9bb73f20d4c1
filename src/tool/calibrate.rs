#[derive(clap::Args)]
pub struct Args {}
pub fn run(_: &Args) -> super::Outcome {
    Ok(())
}
