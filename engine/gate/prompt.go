package gate

// This file is the prompt preprocessor (aw prompt): a chat harness pipes
// every user message through it. A leading /accept or /deny decides a record
// and replaces the message with an <agentic-approval> block; outside Auto an
// <agentic-mode> block is appended. The compressor's own commands pass
// through untouched. /answer is engine/prompt's (questions sit above the
// gate).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// PromptRequest is one user message.
type PromptRequest struct {
	Message string `json:"message" doc:"the user message as typed; a leading /accept or /deny is decided (with the approver token) and the permission-mode block appended"`
}

// PromptResult is the data of prompt.preprocess.
type PromptResult struct {
	// Message is the rewritten message the model is given.
	Message string `json:"message"`
	// Command is the leading slash command recognised: accept, deny, or a
	// pass-through one (compress, compact, usage); "" for a plain message.
	Command     string          `json:"command,omitempty"`
	PassThrough bool            `json:"passThrough,omitempty"`
	Decision    *DecisionResult `json:"decision,omitempty"`
	Mode        string          `json:"mode"`
}

// ModeTitleBytes bounds a title inside the <agentic-mode> block, so the
// block's size does not depend on what a staged operation was called.
const ModeTitleBytes = 60

// MaxModeApprovals is how many pending records the Manual-mode block lists.
const MaxModeApprovals = 5

var passThrough = map[string]bool{"/compress": true, "/compact": true, "/usage": true}

// Prompt preprocesses one user message. Deciding needs a human: the
// harness must hold the approver token (or run on the human's terminal).
// The user typing /accept is the confirmation, so nothing is asked.
func Prompt(ctx context.Context, ws *workspace.Workspace, req *PromptRequest) (envelope.Envelope, error) {
	msg := req.Message
	mode := ws.Settings.PermissionMode
	res := PromptResult{Message: msg, Mode: workspace.ModeName(mode)}
	word, rest := SplitCommand(msg)
	if passThrough[word] {
		res.Command, res.PassThrough = strings.TrimPrefix(word, "/"), true
		env := envelope.New("", fmt.Sprintf("%s passed through untouched: the context compressor owns it.", word), res)
		return env, nil
	}
	var env envelope.Envelope
	if word == "/accept" || word == "/deny" {
		id, note := splitID(rest)
		to, verb := Approved, "/accept in `aw prompt`"
		if word == "/deny" {
			to, verb = Denied, "/deny in `aw prompt`"
		}
		d, err := Decide(ws, verb, id, note, to, false)
		if err != nil {
			return envelope.Envelope{}, err
		}
		res.Command = strings.TrimPrefix(word, "/")
		res.Decision = &d
		res.Message = approvalBlock(ws, &d)
		env = decisionEnvelope(ws, d)
	}
	now := Clock()
	if mode != Auto {
		block, err := modeBlock(ws, now)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if res.Message != "" && !strings.HasSuffix(res.Message, "\n") {
			res.Message += "\n"
		}
		if res.Message != "" {
			res.Message += "\n"
		}
		res.Message += block
	}
	if res.Decision == nil {
		summary := "The message passes through unchanged (Auto mode)."
		if mode != Auto {
			summary = fmt.Sprintf("The message passes through with an <agentic-mode> block for %s mode appended.", workspace.Title(res.Mode))
		}
		env = envelope.New("", summary, nil)
	}
	env.Data = res
	return env, nil
}

// splitCommand returns the leading slash word (lower-cased) and the rest.
func SplitCommand(msg string) (string, string) {
	t := strings.TrimLeft(msg, " \t\r\n")
	if !strings.HasPrefix(t, "/") {
		return "", msg
	}
	end := strings.IndexAny(t, " \t\r\n")
	if end < 0 {
		return strings.ToLower(t), ""
	}
	return strings.ToLower(t[:end]), t[end:]
}

// splitID takes an approval_ or plan_ id off the front of rest; anything
// else is all note (a bare /accept with a note).
func splitID(rest string) (id, note string) {
	t := strings.TrimSpace(rest)
	first, after, _ := strings.Cut(t, " ")
	if i := strings.IndexAny(first, "\t\r\n"); i >= 0 {
		first, after = first[:i], first[i:]+" "+after
	}
	if strings.HasPrefix(first, "approval_") || strings.HasPrefix(first, "plan_") {
		return first, strings.TrimSpace(after)
	}
	return "", t
}

// approvalBlock tells the model what the user decided and what to do next.
func approvalBlock(ws *workspace.Workspace, d *DecisionResult) string {
	var b strings.Builder
	b.WriteString("<agentic-approval>\n")
	switch {
	case d.Status == Approved && d.Kind == "plan":
		fmt.Fprintf(&b, "The user accepted plan %s: %s.\n", d.ID, visible.Line(d.Title))
		if d.Note != "" {
			fmt.Fprintf(&b, "Note from the user: %s\n", d.Note)
		}
		if ws.Settings.PermissionMode == Manual {
			fmt.Fprintf(&b, "Manual mode: the plan (%s) is a shared checklist; every mutating call is still staged and needs its own /accept.\n", d.PlanPath)
		} else {
			fmt.Fprintf(&b, "Carry out the plan (%s) now: mutating calls run until you call workspace_plan {\"action\":\"complete\",\"plan_id\":%q}.\n", d.PlanPath, d.ID)
		}
	case d.Status == Approved:
		fmt.Fprintf(&b, "The user accepted %s (%s): %s.\n", d.ID, d.Kind, visible.Line(d.Title))
		if d.Note != "" {
			fmt.Fprintf(&b, "Note from the user: %s\n", d.Note)
		}
		fmt.Fprintf(&b, "Resume now with exactly this call: %s\n", d.ResumeCall)
	default:
		what := d.ID + " (" + d.Kind + ")"
		if d.Kind == "plan" {
			what = "plan " + d.ID
		}
		fmt.Fprintf(&b, "The user denied %s: %s.\n", what, visible.Line(d.Title))
		if d.Reason != "" {
			fmt.Fprintf(&b, "Reason: %s\n", d.Reason)
		} else {
			b.WriteString("No reason was given.\n")
		}
		if d.Kind == "plan" {
			b.WriteString("Do not carry out this plan. Revise it to address the reason and propose it again with workspace_plan (action propose), or ask the user.\n")
		} else {
			b.WriteString("Never re-issue the denied operation unchanged: change it to address the reason, or ask the user.\n")
		}
	}
	if len(d.OtherPending) > 0 {
		fmt.Fprintf(&b, "Still pending: %s.", strings.Join(firstN(d.OtherPending, 5), ", "))
		if d.Bare {
			b.WriteString(" The bare command decided only the newest record.")
		}
		b.WriteString("\n")
	}
	b.WriteString("</agentic-approval>\n")
	return b.String()
}

// modeBlock restates the permission mode: in Plan mode the pending or
// approved plan with its age, in Manual mode up to five pending records.
func modeBlock(ws *workspace.Workspace, now time.Time) (string, error) {
	s, err := Load(ws, now)
	if err != nil {
		return "", err
	}
	mode := ws.Settings.PermissionMode
	var b strings.Builder
	b.WriteString("<agentic-mode>\n")
	fmt.Fprintf(&b, "Permission mode: %s (%d).", workspace.Title(workspace.ModeName(mode)), mode)
	switch mode {
	case Plan:
		b.WriteString(" Mutating calls need a plan the user approved.\n")
		if p := s.Plan(Pending); p != nil {
			fmt.Fprintf(&b, "Pending plan %s (revision %d, proposed %s ago): %s. It waits for the user's /accept %s; run no mutating call until then.\n",
				p.ID, p.Revision, age(now.Sub(p.CreatedAt)), clip(visible.Line(p.Title), ModeTitleBytes), p.ID)
		} else if p := s.Plan(Approved); p != nil {
			fmt.Fprintf(&b, "Approved plan %s (revision %d, proposed %s ago, approved %s ago, expires in %s): %s. Mutating calls run until workspace_plan complete.\n",
				p.ID, p.Revision, age(now.Sub(p.CreatedAt)), age(now.Sub(p.DecidedAt)), age(p.ExpiresAt.Sub(now)), clip(visible.Line(p.Title), ModeTitleBytes))
		} else {
			b.WriteString("No plan is pending or approved: propose one with workspace_plan (action propose) and stop until the user accepts it.\n")
		}
	default:
		b.WriteString(" Every mutating call is staged and runs only after the user's /accept.\n")
		pending := PendingNewest(s)
		if len(pending) == 0 {
			b.WriteString("No approvals are pending.\n")
			break
		}
		fmt.Fprintf(&b, "Pending approvals, newest first (%d pending; a bare /accept decides only the first, so tell the user the id to name):\n", len(pending))
		for i, r := range pending {
			if i == MaxModeApprovals {
				fmt.Fprintf(&b, "… and %d more (aw approval list)\n", len(pending)-MaxModeApprovals)
				break
			}
			fmt.Fprintf(&b, "%d. %s (%s): %s\n", i+1, r.ID, r.Kind, clip(visible.Line(r.Title), ModeTitleBytes))
		}
	}
	b.WriteString("</agentic-mode>")
	return b.String(), nil
}
