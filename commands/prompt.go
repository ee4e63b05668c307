package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/prompt"
	"github.com/agentic-workspace/aw/output/visible"
)

func (a *app) promptCmd() *cobra.Command {
	row, err := dispatch.Find(dispatch.Prompt.Noun, "preprocess")
	if err != nil {
		panic(err)
	}
	var text bool
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: dispatch.Prompt.Short,
		Long: `Read one user message on stdin and rewrite it for the model (a chat
harness pipes every user message through aw prompt):

  /accept [ID] [NOTE]   approve a pending approval_… or plan_… (default: the
  /deny [ID] [REASON]   newest pending one) and replace the message with an
                        <agentic-approval> block: what was decided and the
                        exact call to resume with, or the reason and that the
                        denied operation must never be re-issued unchanged.
  /answer [ID] ANSWER   answer a question an agent asked with aw ask (default:
  /answer [ID] --skip   the newest pending one): an option's number or label,
                        several separated by commas, or your own words where
                        the question takes them; the message becomes an
                        <agentic-answer> block saying what was answered.
  /compress, /compact, /usage   pass through untouched.

Outside Auto mode an <agentic-mode> block is appended: in Plan mode the
pending or approved plan with its age, in Manual mode up to five pending
approvals, newest first, titles clipped to 60 bytes.

Deciding is a human act: the harness must hold AW_APPROVER_TOKEN (or the
command run in your own terminal); otherwise HUMAN_REQUIRED. Typing /accept
is the confirmation, so nothing is asked.

Output: one envelope whose data.message is the rewritten message, with
data.decision describing what was decided (data.answer: the question
answered). --text prints only the rewritten
message instead, for harnesses that want raw text; with --text a failure
prints nothing on stdout, the error on stderr, and exits 1 (2 for bad input).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := readAll(a.io.In)
			if err != nil {
				a.emit(envelope.Fail(row.Operation(), envelope.Errorf(envelope.InvalidInput, "cannot read the message from stdin: %v", err)))
				return nil
			}
			req := &gate.PromptRequest{Message: string(raw)}
			var env envelope.Envelope
			if ws, err := a.openWorkspace(); err != nil {
				env = envelope.Fail(row.Operation(), err)
			} else {
				env = row.Run(cmd.Context(), ws, req) // with the warnings in it
				if text {
					for _, w := range ws.Warnings {
						fmt.Fprintf(a.io.Err, "aw prompt: warning: %s\n", visible.Line(w))
					}
				}
			}
			if !text {
				a.emit(env)
				return nil
			}
			a.result = &env
			if res, ok := env.Payload().(prompt.Result); ok && env.OK {
				msg := res.Message
				if a.io.Terminal(a.io.Out) {
					// A human reads it: show what the blocks carry.
					msg = visible.Block(msg)
				}
				fmt.Fprint(a.io.Out, msg)
				return nil
			}
			if env.Error != nil {
				fmt.Fprintf(a.io.Err, "aw prompt: %s: %s\n", env.Error.Code, visible.Line(env.Error.Message))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&text, "text", false, "print only the rewritten message, not the envelope")
	return cmd
}
