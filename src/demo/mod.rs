//! TEMP stub
pub async fn run_foreground(_port: u16) -> anyhow::Result<()> {
    Ok(())
}
