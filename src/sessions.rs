//! GraphQL sessions for the frontend, in `data/auth.db`.

use crate::cli::SessionsCommand;

pub fn sessions_command(_cmd: SessionsCommand) -> anyhow::Result<()> {
    anyhow::bail!("sessions are not built yet")
}
