//! `roost serve`: the shim.

use crate::cli::ServeArgs;

pub fn serve(_args: ServeArgs) -> anyhow::Result<()> {
    anyhow::bail!("serve is not built yet")
}
