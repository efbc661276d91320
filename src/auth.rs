//! API keys and GraphQL sessions in `data/auth.db`.

use crate::cli::{KeysCommand, SessionsCommand};

pub fn keys_command(_cmd: KeysCommand) -> anyhow::Result<()> {
    anyhow::bail!("keys are not built yet")
}

pub fn sessions_command(_cmd: SessionsCommand) -> anyhow::Result<()> {
    anyhow::bail!("sessions are not built yet")
}
