package commands

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/output/visible"
)

func (a *app) approvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approval",
		Short: dispatch.Approval.Short,
		Long: `Approval and plan records live in .agentic/approvals/state.json. list and
show are for anyone; accept and deny are human verbs: they run in your own
terminal (you are shown the title, kind and diff or argv, and confirm y/N)
or for a harness holding AW_APPROVER_TOKEN.`,
	}
	token := a.verb(dispatch.Approval, "token", "token", nil, nil)
	token.Args = cobra.NoArgs
	token.Long = `Create a fresh approver token in $XDG_CONFIG_HOME/aw/approver.token
(mode 0600) and print it. A harness or script you own that sets
AW_APPROVER_TOKEN to it may run human verbs (config set, approval accept and
deny, gc). Runs only in your own terminal; the file is ignored if it lies inside
a workspace, is not yours, or is readable by others.`

	list := a.verb(dispatch.Approval, "list", "list", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*gate.ApprovalListRequest).All, "all", false, "every record, decided and expired ones too (default: pending and approved)")
	}, nil)
	list.Args = cobra.NoArgs
	show := a.verb(dispatch.Approval, "show", "show ID", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*gate.ApprovalShowRequest).ID = args[0]
		}
	})
	show.Args = cobra.MaximumNArgs(1)

	accept := a.decideCmd("accept", "accept [ID] [NOTE...]", func(req any, id, text string) {
		r := req.(*gate.AcceptRequest)
		if id != "" {
			r.ID = id
		}
		if text != "" {
			r.Note = text
		}
	})
	accept.Long = `Approve a pending approval_… or plan_… record. Without an id the newest
pending record (plans included) is decided, and only that one: the summary
warns when others are still pending. Accepting a plan approves it: in Plan
mode mutating calls then run until ` + "`aw plan complete`" + `. The result names the
exact call the agent resumes with.

A human verb: in your own terminal you are shown what you decide and
confirm with y; elsewhere AW_APPROVER_TOKEN must match your token file.`
	deny := a.decideCmd("deny", "deny [ID] [REASON...]", func(req any, id, text string) {
		r := req.(*gate.DenyRequest)
		if id != "" {
			r.ID = id
		}
		if text != "" {
			r.Reason = text
		}
	})
	deny.Long = `Deny a pending approval_… or plan_… record (without an id, the newest
pending one). The reason is passed to the agent; the identical operation is
refused with APPROVAL_DENIED until the record expires (24 h after it was
staged). A human verb, like accept.`
	cmd.AddCommand(list, show, accept, deny, token)
	return cmd
}

// decideCmd builds accept or deny. The first argument is the id when it
// looks like one (approval_… or plan_…); every other argument is the note
// or reason. On a terminal the engine may ask the human to confirm.
func (a *app) decideCmd(action, use string, fill func(req any, id, text string)) *cobra.Command {
	return a.verb(dispatch.Approval, action, use, nil, func(req any, args []string) {
		id := ""
		if len(args) > 0 && (strings.HasPrefix(args[0], "approval_") || strings.HasPrefix(args[0], "plan_")) {
			id, args = args[0], args[1:]
		}
		fill(req, id, strings.Join(args, " "))
	})
}

// confirm shows the human what is decided on the controlling terminal and
// reads one line from it: only y or yes (any case) agrees. stdout keeps
// just the envelope, and may be piped.
func (a *app) confirm(prompt string) bool {
	line, err := a.readLine(prompt)
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// readLine shows text at the terminal and reads the human's line. The
// screen is built from what an agent wrote: its control characters are
// shown, never obeyed.
func (a *app) readLine(text string) (string, error) {
	tty, err := a.io.TTY()
	if err != nil {
		return "", err
	}
	defer tty.Close()
	fmt.Fprint(tty, visible.Block(text))
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
