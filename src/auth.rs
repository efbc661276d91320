//! REST API keys in `data/auth.db`.

use crate::cli::KeysCommand;

pub fn keys_command(_cmd: KeysCommand) -> anyhow::Result<()> {
    anyhow::bail!("keys are not built yet")
}
