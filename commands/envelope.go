package commands

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/compact"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/output/visible"
)

func (a *app) envelopeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "envelope",
		Short: "Work with agentic-workspace/v1 envelopes (compact them for a transcript)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.emit(envelope.Fail("envelope", envelope.Errorf(envelope.InvalidInput, "envelope needs an action: compact (see `aw envelope --help`)")))
			return nil
		},
	}
	var budget int
	compactCmd := &cobra.Command{
		Use:   "compact [--budget N]",
		Short: "Compact envelopes from stdin for a context compressor",
		Long: `Read envelopes on stdin — one JSON object, JSON lines, or an envelope inside
a JSON string (a tool result's text) — and write each one compacted, one
per line, as a context compressor keeps it:

  * the paths in retention.omit_when_summarizing are dropped;
  * summary (up to 4,000 characters), retention.facts (up to 60), error and
    artifact references are kept;
  * from data, only keys the importance rule recognises are kept (id,
    status, mode, title, kind, destructive, plan, files, commands, approval,
    approvals, plans, activePlan, pendingPlan, pendingApprovals; keys ending
    in id/Id, path/Path, status, count, url, sha256; keys starting with
    transaction, run, job, task, todo, board, research, source, query,
    checkpoint), recursing only through them, with resume.tool and every
    resume.arguments entry verbatim;
  * when that is still over --budget characters, data becomes the
    recovery-field list ("data.jobs.0.id=job_…"), facts are cut to 30, and
    a staged approval is re-attached. Ids are never dropped.

Values that are not envelopes pass through unchanged. Harnesses written in
Go can import github.com/agentic-workspace/aw/engine/compact instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if budget < 0 {
				a.emit(envelope.Fail("envelope.compact", envelope.Errorf(envelope.InvalidInput, "--budget %d is negative: pass a number of characters (default %d)", budget, compact.DefaultBudget)))
				return nil
			}
			// Read everything first: a bad value anywhere must not leave a
			// half-written stream behind.
			var outs [][]byte
			dec := compact.NewDecoder(a.io.In)
			for i := 1; ; i++ {
				raw, err := dec.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					a.emit(envelope.Fail("envelope.compact", envelope.Errorf(envelope.InvalidInput,
						"stdin value %d is not JSON (%v): pipe envelopes as JSON objects, JSON lines, or JSON strings", i, err)))
					return nil
				}
				res, err := compact.Compact(raw, budget)
				if err != nil {
					a.emit(envelope.Fail("envelope.compact", envelope.Errorf(envelope.InvalidInput, "stdin value %d: %v", i, err)))
					return nil
				}
				outs = append(outs, res.JSON)
			}
			for _, o := range outs {
				if _, err := fmt.Fprintf(a.io.Out, "%s\n", visible.JSON(o)); err != nil {
					a.exitCode = ExitFailed
					return nil
				}
			}
			return nil
		},
	}
	compactCmd.Flags().IntVar(&budget, "budget", compact.DefaultBudget, "characters an envelope may take before data becomes the recovery-field list")
	cmd.AddCommand(compactCmd)
	return cmd
}
