package commands

import "github.com/spf13/cobra"

// Help topics: `aw help environment`, `aw help exit-codes`. A command
// without a Run is a topic in cobra: it is listed under "Additional help
// topics" and gets a man page like a verb.
func (a *app) environmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables aw reads",
		Long: `Environment variables aw reads. Flags and the environment can only narrow
what a call may do; the permission mode and the policy come from settings
files.

  AW_ROOT            the workspace root when --root is not given; like --root
                     it may only name the discovered workspace or a directory
                     inside it, which then narrows the call like --scope
  AW_APPROVER_TOKEN  lets a harness or script the human owns run the human
                     verbs (approval accept/deny, config set, gc): it must
                     equal the token in $XDG_CONFIG_HOME/aw/approver.token,
                     created by ` + "`aw approval token`" + ` at the human's terminal
  XDG_CONFIG_HOME    where the user config (aw/config.json) and the approver
                     token live (default ~/.config); a file there that lies
                     inside the workspace, is not the user's own or is
                     readable by others is ignored with a warning
  HOME               locates ~/.config when XDG_CONFIG_HOME is unset
  XDG_CACHE_HOME     where the OS sandbox keeps its per-workspace private
                     home, temporary directory and caches, and where aw ast
                     keeps compiled grammars (aw/wazero) and parsed trees
                     (aw/trees; safe to delete) (default ~/.cache)
  PATH               where commands' executables are looked up (directories
                     inside the workspace are never used) and where Chromium
                     is found when browser.executable is unset
  NO_COLOR           any value but "" turns colors off (--color auto)
  PAGER              the pager for table output longer than the terminal
                     (default less -FRX; cat turns paging off)
  GH_TOKEN           the GitHub token (the variable github.tokenEnv names)
  OPENAI_API_KEY     the model endpoint's key (the variable agents.apiKeyEnv names)

Commands run by ` + "`aw command run|start`" + ` see only the variables
commands.inheritEnv lists (default PATH, HOME, LANG) and commands.env sets;
variables that make a program run other programs or read configuration
(GIT_*, LD_PRELOAD, BASH_ENV, ...) are stripped.`,
	}
}

func (a *app) exitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What aw's exit codes mean",
		Long: `Every call prints one agentic-workspace/v1 envelope and exits with:

  0  ok: the action ran (or was a declared no-op)
  1  failed: the envelope has ok false and error.code says why (also when
     --jq fails on an ok result)
  2  usage: an unknown command or flag, a bad value; every INVALID_INPUT
     exits 2, and the envelope is still printed
  3  ok but staged: data.status is pending_approval; a human accepts it
     with ` + "`aw approval accept ID`" + ` and the same call then runs

A command that aw ran and that failed is data, not an error: ` + "`aw command run`" + `
exits 0 and data.exitCode is the command's own exit code.`,
	}
}

func (a *app) filesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "files",
		Short: "The files aw reads and writes",
		Long: `The files aw reads and writes. In the workspace:

  .agentic/config.json            workspace settings (human-owned; // comments allowed)
  .agentic/MEMORY.md              durable memory
  .agentic/notes/<name>.md        notes
  .agentic/approvals/state.json   approval and plan records
  .agentic/plans/<plan_id>/       plans
  .agentic/transactions/<tx_id>/  transaction.json, changes.diff, review.md, blobs/
  .agentic/jobs/<job_id>/         job.json, stdout.log, stderr.log
  .agentic/tasks/                 task boards and the session checklist
  .agentic/research/, browser/    research projects, browser sessions
  .agentic/artifacts/             results too large for an envelope
  .agentic/lock, gc.json          the store lock; when pruning last ran

.agentic/ is protected: readable, never writable through aw's tools or by
the commands it runs. For the user: $XDG_CONFIG_HOME/aw/config.json (user
settings, under the workspace's) and $XDG_CONFIG_HOME/aw/approver.token
(mode 600, created by ` + "`aw approval token`" + `).`,
	}
}
