package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/gc"
)

func (a *app) gcCmd() *cobra.Command {
	c := a.verb(dispatch.Store, "gc", "gc [--dry-run]", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*gc.Request).DryRun, "dry-run", false, "report what would be removed, remove nothing")
	}, nil)
	c.Args = cobra.NoArgs
	c.Long = `Prune .agentic/ now and report what was freed, per kind: transactions,
artifacts, job directories (record and logs), browser profiles and settled
sub-agent runs (state and transcript) older than
store.retentionDays (default 14), then the oldest of them while .agentic/ is
larger than store.maxBytes (default 2 GiB).

Never removed: what a pending or approved approval names (the transaction
it commits, the diff it shows), a running job, a live browser session, a
running sub-agent run, a transaction being committed or rolled back, the
newest 10 transactions, 10 jobs and 10 runs (what ` + "`aw inspect changes`" + ` is
read for after a compaction), and
anything changed in the last 10 minutes. Notes, MEMORY.md, task boards,
plans, research projects, approval records and settings are never pruned.

Every aw call that may write also prunes lightly: at most once an hour per
workspace (recorded in .agentic/gc.json), at most 50 entries. A call capped
at --tier read never prunes.

Stale processes are ended first: job trees whose supervisor is gone,
Chromium processes no session names, and run supervisors still alive after
their run settled or after a cancel they did not obey (their run is
recorded cancelled).

A human verb: in your own terminal you are shown what would be removed and
confirm with y; elsewhere AW_APPROVER_TOKEN must match your token file.
--dry-run only reports.`
	return c
}
