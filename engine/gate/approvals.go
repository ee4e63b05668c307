package gate

// This file is the human's side of the gate: listing, showing and deciding
// approval and plan records. Deciding is a human verb: RequireHuman admits a
// terminal or the approver token, and only the terminal path is asked to
// confirm.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// MaxTextChars bounds every free-text field a caller hands the gate (plan
// text, notes, reasons, completion summaries).
const MaxTextChars = 2000

// ApprovalListRequest is approval list: pending and approved records, or
// every record with all.
type ApprovalListRequest struct {
	All bool `json:"all,omitempty" doc:"include every record, denied and expired ones too; default false: only pending and approved ones"`
}

// ApprovalShowRequest is approval show.
type ApprovalShowRequest struct {
	ID string `json:"id" doc:"the approval_ or plan_ id (a unique prefix works)"`
}

// AcceptRequest is approval accept: without an id the newest pending
// record (plans included) is decided.
type AcceptRequest struct {
	ID   string `json:"id,omitempty" doc:"the approval_ or plan_ id to approve (a unique prefix works); default: the newest pending record"`
	Note string `json:"note,omitempty" doc:"a note kept with the decision, at most 2000 characters"`
}

// DenyRequest is approval deny.
type DenyRequest struct {
	ID     string `json:"id,omitempty" doc:"the approval_ or plan_ id to deny (a unique prefix works); default: the newest pending record"`
	Reason string `json:"reason,omitempty" doc:"why, passed to the agent; at most 2000 characters"`
}

// ApprovalItem is one entry of approval.list, newest first; scripts rely on
// its field names.
type ApprovalItem struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Status    string    `json:"status"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ApprovalList is the data of approval.list.
type ApprovalList struct {
	Approvals []ApprovalItem `json:"approvals"`
	Total     int            `json:"total"`
	Pending   int            `json:"pending"`
	All       bool           `json:"all"`
}

// ApprovalShow is the data of approval.show: the record and what a human
// deciding it is shown.
type ApprovalShow struct {
	Approval        Record `json:"approval"`
	Review          string `json:"review,omitempty"`
	ReviewPath      string `json:"reviewPath,omitempty"`
	ReviewTruncated bool   `json:"reviewTruncated,omitempty"`
}

// Decision result of accept, deny and the prompt preprocessor.
type DecisionResult struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Status       string   `json:"status"`
	Title        string   `json:"title"`
	Decided      bool     `json:"decided"`
	Note         string   `json:"note,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Resume       *Resume  `json:"resume,omitempty"`
	ResumeCall   string   `json:"resumeCall,omitempty"`
	PlanPath     string   `json:"planPath,omitempty"`
	ExpiresAt    string   `json:"expiresAt,omitempty"`
	OtherPending []string `json:"otherPending,omitempty"`
	// Bare is true when no id was given and the newest pending record was taken.
	Bare bool `json:"bare,omitempty"`
}

// byNewest returns the records keep selects, newest first. Records created
// at the same instant are ordered by their place in the file (later = newer),
// so a bare accept always takes the first entry of every listing.
func byNewest(s *State, keep func(*Record) bool) []Record {
	type at struct {
		r Record
		i int
	}
	var sel []at
	for i := range s.Records {
		if keep(&s.Records[i]) {
			sel = append(sel, at{s.Records[i], i})
		}
	}
	sort.SliceStable(sel, func(a, b int) bool {
		if !sel[a].r.CreatedAt.Equal(sel[b].r.CreatedAt) {
			return sel[a].r.CreatedAt.After(sel[b].r.CreatedAt)
		}
		return sel[a].i > sel[b].i
	})
	out := make([]Record, len(sel))
	for i, x := range sel {
		out[i] = x.r
	}
	return out
}

// PendingNewest is every pending record, plans included, newest first: the
// order a bare /accept follows.
func PendingNewest(s *State) []Record {
	return byNewest(s, func(r *Record) bool { return r.Status == Pending })
}

func (s *State) find(id string) *Record {
	for i := range s.Records {
		if s.Records[i].ID == id {
			return &s.Records[i]
		}
	}
	return nil
}

func item(r Record) ApprovalItem {
	return ApprovalItem{ID: r.ID, Kind: r.Kind, Status: r.Status, Title: r.Title, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}
}

// ListApprovals lists records newest first: pending and approved ones, or
// every record with all.
func ListApprovals(ctx context.Context, ws *workspace.Workspace, req *ApprovalListRequest) (envelope.Envelope, error) {
	s, err := Load(ws, Clock())
	if err != nil {
		return envelope.Envelope{}, err
	}
	recs := byNewest(s, func(r *Record) bool { return req.All || r.Status == Pending || r.Status == Approved })
	data := ApprovalList{Approvals: []ApprovalItem{}, Total: len(recs), All: req.All}
	for _, r := range recs {
		data.Approvals = append(data.Approvals, item(r))
		if r.Status == Pending {
			data.Pending++
		}
	}
	which := "pending or approved"
	if req.All {
		which = "in all"
	}
	summary := fmt.Sprintf("%d %s %s (%d pending), newest first.", len(recs), plural(len(recs), "record"), which, data.Pending)
	if len(recs) == 0 {
		summary = "No pending or approved records."
		if req.All {
			summary = "No approval or plan records."
		}
		if !req.All {
			summary += " `aw approval list --all` shows decided and expired ones."
		}
	} else if data.Pending > 1 {
		summary += " Decide each with `aw approval accept ID` or `aw approval deny ID REASON`: a bare accept decides only the newest pending one."
	}
	env := envelope.New("", summary, data)
	for i, r := range recs {
		if i == 5 {
			env.Fact("%d more records: `aw approval list%s`", len(recs)-5, map[bool]string{true: " --all"}[req.All])
			break
		}
		env.Fact("%s %s %s: %s", labelOf(r), r.ID, r.Status, clip(r.Title, 60))
	}
	if data.Pending > 0 {
		env.Retention.Importance = envelope.High
	}
	return env, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func labelOf(r Record) string {
	if r.Kind == "plan" {
		return "plan"
	}
	return "approval"
}

// ShowApproval returns one record and its review text (a transaction's
// diff, a command's argv, a plan's markdown), bounded by maxToolResultChars.
func ShowApproval(ctx context.Context, ws *workspace.Workspace, req *ApprovalShowRequest) (envelope.Envelope, error) {
	id := strings.TrimSpace(req.ID)
	if id == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "approval show needs an id (approval_… or plan_…); `aw approval list --all` lists them")
	}
	s, err := Load(ws, Clock())
	if err != nil {
		return envelope.Envelope{}, err
	}
	r := s.find(id)
	if r == nil {
		return envelope.Envelope{}, notFound(id)
	}
	text, src, truncated := reviewText(ws, r, ws.Settings.MaxToolResultChars)
	data := ApprovalShow{Approval: *r, Review: text, ReviewPath: src, ReviewTruncated: truncated}
	summary := fmt.Sprintf("Approval %s (%s) is %s: %s.", r.ID, r.Kind, r.Status, r.Title)
	if r.Kind == "plan" {
		summary = fmt.Sprintf("Plan %s is %s: %s.", r.ID, r.Status, r.Title)
	}
	if r.Status == Pending {
		summary += fmt.Sprintf(" The user decides it with /accept %s or /deny %s <reason> (or `aw approval accept|deny %s` in their terminal).", r.ID, r.ID, r.ID)
	}
	if truncated {
		summary += fmt.Sprintf(" The review text was cut at %d characters; the whole of it is %s.", ws.Settings.MaxToolResultChars, src)
	}
	env := envelope.New("", summary, data)
	env.Fact("%s %s %s: %s", labelOf(*r), r.ID, r.Status, clip(r.Title, 60))
	if r.Resume != nil {
		env.Fact("resume: %s", resumeCall(r.Resume))
	}
	env.Omit("data.review")
	return env, nil
}

func notFound(id string) error {
	return envelope.Errorf(envelope.NotFound,
		"no approval or plan record %s (records are kept at most 300, and an unknown id may be mistyped); `aw approval list --all` lists the records", id).With("id", id)
}

// reviewText is what a human deciding r is shown. A Review (or a plan's
// PlanPath) naming a file under .agentic/ is read, bounded by limit
// characters; any other Review (a command's argv) is shown as it is.
func reviewText(ws *workspace.Workspace, r *Record, limit int) (text, src string, truncated bool) {
	src = r.Review
	if src == "" && r.Kind == "plan" {
		src = r.PlanPath
	}
	if src == "" {
		return "", "", false
	}
	abs, ok := storeFile(ws, src)
	if !ok {
		return src, "", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Sprintf("(the review file %s cannot be read: %v)", src, err), src, false
	}
	defer f.Close()
	// limit characters are at most 4*limit bytes; read one byte more to know.
	raw, _ := io.ReadAll(io.LimitReader(f, int64(4*limit)+1))
	text = string(raw)
	if utf8.RuneCountInString(text) > limit {
		n := 0
		for i := range text {
			if n == limit {
				text = text[:i]
				break
			}
			n++
		}
		truncated = true
	}
	return text, src, truncated
}

// storeFile resolves a root-relative path that must name a regular file
// under .agentic/ (symlinks resolved), so a record can never make aw show
// a file from elsewhere.
func storeFile(ws *workspace.Workspace, rel string) (string, bool) {
	clean := path.Clean(filepath.ToSlash(rel))
	if !strings.HasPrefix(clean, workspace.StateDir+"/") || strings.Contains(clean, "\x00") {
		return "", false
	}
	abs := filepath.Join(ws.Root, filepath.FromSlash(clean))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return abs, true // missing: reported when it is opened
	}
	dir, err := filepath.EvalSymlinks(ws.Store.Dir)
	if err != nil || !strings.HasPrefix(real, dir+string(filepath.Separator)) {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return real, true
}

// resumeCall renders a resume call as the agent issues it.
func resumeCall(r *Resume) string {
	if r == nil {
		return ""
	}
	args, _ := json.Marshal(r.Arguments)
	return r.Tool + " " + string(args)
}

// Accept approves a pending record (a human verb).
func Accept(ctx context.Context, ws *workspace.Workspace, req *AcceptRequest) (envelope.Envelope, error) {
	res, err := Decide(ws, "`aw approval accept`", req.ID, req.Note, Approved, true)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return decisionEnvelope(ws, res), nil
}

// Deny denies a pending record (a human verb).
func Deny(ctx context.Context, ws *workspace.Workspace, req *DenyRequest) (envelope.Envelope, error) {
	res, err := Decide(ws, "`aw approval deny`", req.ID, req.Reason, Denied, true)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return decisionEnvelope(ws, res), nil
}

// Decide moves a pending record to approved or denied for a human (verb
// names the human verb in a refusal). Without an id the newest pending
// record is taken. When confirm is set and the caller is a terminal, the
// human is shown what is decided and must answer yes; a no decides nothing
// (Decided false). A token holder is never asked. The record is re-checked under the store lock, so a
// record decided by someone else meanwhile is TRANSACTION_STATE.
func Decide(ws *workspace.Workspace, verb, id, note, to string, confirm bool) (DecisionResult, error) {
	if err := RequireHuman(ws, verb); err != nil {
		return DecisionResult{}, err
	}
	id = strings.TrimSpace(id)
	note = strings.TrimSpace(note)
	field := "note"
	if to == Denied {
		field = "reason"
	}
	if n := utf8.RuneCountInString(note); n > MaxTextChars {
		return DecisionResult{}, envelope.Errorf(envelope.InvalidInput, "the %s is %d characters; at most %d are kept with a decision: shorten it", field, n, MaxTextChars).With("field", field)
	}
	s, err := Load(ws, Clock())
	if err != nil {
		return DecisionResult{}, err
	}
	target, err := pick(s, id)
	if err != nil {
		return DecisionResult{}, err
	}
	if confirm && ws.Caller.Terminal {
		// A terminal caller decides only after seeing what it decides; a
		// front end that cannot ask must not decide silently.
		if ws.Caller.Confirm == nil {
			return DecisionResult{}, envelope.Errorf(envelope.HumanRequired,
				"this front end cannot ask you to confirm; run `aw approval accept|deny` in your terminal, which shows what you decide and asks y/N")
		}
		if !ws.Caller.Confirm(confirmText(ws, &target, to)) {
			return DecisionResult{ID: target.ID, Kind: target.Kind, Status: target.Status, Title: target.Title, Bare: id == ""}, nil
		}
	}
	var res DecisionResult
	err = update(ws, func(s *State, now time.Time) error {
		r := s.find(target.ID)
		if r == nil {
			return notFound(target.ID)
		}
		if r.Status != Pending {
			return notPending(r)
		}
		r.Status = to
		r.Note = note
		r.DecidedAt = now
		res = DecisionResult{
			ID: r.ID, Kind: r.Kind, Status: r.Status, Title: r.Title, Decided: true,
			Resume: r.Resume, ResumeCall: resumeCall(r.Resume), PlanPath: r.PlanPath,
			ExpiresAt: r.ExpiresAt.UTC().Format(time.RFC3339), Bare: id == "",
		}
		if to == Denied {
			res.Reason = note
			res.Resume, res.ResumeCall = nil, ""
		} else {
			res.Note = note
		}
		for _, p := range PendingNewest(s) {
			res.OtherPending = append(res.OtherPending, p.ID)
		}
		return nil
	})
	if err != nil {
		return DecisionResult{}, err
	}
	return res, nil
}

// pick finds the record to decide: by id, or the newest pending one.
func pick(s *State, id string) (Record, error) {
	if id == "" {
		pending := PendingNewest(s)
		if len(pending) == 0 {
			return Record{}, envelope.Errorf(envelope.NotFound,
				"nothing is pending: no approval or plan is waiting for a decision; `aw approval list --all` lists the records")
		}
		return pending[0], nil
	}
	r := s.find(id)
	if r == nil {
		return Record{}, notFound(id)
	}
	if r.Status != Pending {
		return Record{}, notPending(r)
	}
	return *r, nil
}

func notPending(r *Record) error {
	hint := "only a pending record can be decided"
	switch r.Status {
	case Expired:
		hint = "it expired 24 h after it was created; the agent must re-issue the call to stage a fresh approval"
		if r.Kind == "plan" {
			hint = "it expired 24 h after it was proposed; the agent must propose the plan again"
		}
	case Superseded:
		hint = "a newer plan replaced it; `aw plan current` shows the one to decide"
	}
	return envelope.Errorf(envelope.TransactionState, "%s %s is %s, not pending: %s", labelOf(*r), r.ID, r.Status, hint).
		With("id", r.ID).With("status", r.Status)
}

// confirmText is what the human at the terminal sees before answering.
func confirmText(ws *workspace.Workspace, r *Record, to string) string {
	verb := "Accept"
	if to == Denied {
		verb = "Deny"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s?\n", verb, labelOf(*r), r.ID)
	fmt.Fprintf(&b, "  kind:        %s\n", r.Kind)
	// One line each: a newline in what the agent staged must not forge
	// another line of this screen.
	fmt.Fprintf(&b, "  title:       %s\n", visible.Line(r.Title))
	if r.Destructive {
		fmt.Fprintf(&b, "  destructive: yes (it deletes, moves or overwrites existing content)\n")
	}
	fmt.Fprintf(&b, "  created:     %s (expires %s)\n", r.CreatedAt.Local().Format(time.DateTime), r.ExpiresAt.Local().Format(time.DateTime))
	if r.Resume != nil {
		fmt.Fprintf(&b, "  resumes as:  %s\n", visible.Line(resumeCall(r.Resume)))
	}
	text, src, truncated := reviewText(ws, r, ws.Settings.MaxToolResultChars)
	if text != "" {
		what := "review"
		if src != "" {
			what = src
		}
		fmt.Fprintf(&b, "--- %s ---\n%s", what, text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
		if truncated {
			fmt.Fprintf(&b, "… (cut at %d characters; the whole of it is %s)\n", ws.Settings.MaxToolResultChars, src)
		}
		b.WriteString("---\n")
	}
	fmt.Fprintf(&b, "%s %s? [y/N] ", verb, r.ID)
	return b.String()
}

// decisionEnvelope reports a decision: what was decided, the exact resume
// call, and a warning when a bare accept left other records pending.
func decisionEnvelope(ws *workspace.Workspace, res DecisionResult) envelope.Envelope {
	if !res.Decided {
		env := envelope.New("", fmt.Sprintf("Nothing decided: the answer was not yes, so %s %s stays %s.", labelOfKind(res.Kind), res.ID, res.Status), res)
		env.Fact("%s %s still %s: %s", labelOfKind(res.Kind), res.ID, res.Status, clip(res.Title, 60))
		return env
	}
	env := envelope.New("", decisionSummary(ws, res), res)
	env.Retention.Importance = envelope.Critical
	env.Fact("%s %s %s: %s", labelOfKind(res.Kind), res.ID, res.Status, clip(res.Title, 60))
	if res.ResumeCall != "" {
		env.Fact("resume with: %s", res.ResumeCall)
	}
	if res.Reason != "" {
		env.Fact("deny reason: %s", clip(res.Reason, 300))
	}
	if len(res.OtherPending) > 0 {
		env.Fact("still pending: %s", strings.Join(firstN(res.OtherPending, 5), ", "))
	}
	return env
}

func labelOfKind(kind string) string { return labelOf(Record{Kind: kind}) }

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string{}, s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

func decisionSummary(ws *workspace.Workspace, res DecisionResult) string {
	var b strings.Builder
	switch {
	case res.Status == Approved && res.Kind == "plan":
		fmt.Fprintf(&b, "Approved plan %s: %s.", res.ID, res.Title)
		if ws.Settings.PermissionMode == Manual {
			b.WriteString(" Manual mode: the plan is a shared checklist; each mutating call is still staged and needs its own /accept.")
		} else {
			fmt.Fprintf(&b, " Mutating calls now run until the agent calls workspace_plan {\"action\":\"complete\",\"plan_id\":%q} (`aw plan complete %s`).", res.ID, res.ID)
		}
	case res.Status == Approved:
		fmt.Fprintf(&b, "Approved %s (%s): %s. The agent resumes with exactly this call: %s.", res.ID, res.Kind, res.Title, res.ResumeCall)
	case res.Kind == "plan":
		fmt.Fprintf(&b, "Denied plan %s: %s.", res.ID, res.Title)
		if res.Reason != "" {
			fmt.Fprintf(&b, " Reason: %s.", res.Reason)
		}
		b.WriteString(" The agent must not run the plan: it revises it and proposes again, or asks the user.")
	default:
		fmt.Fprintf(&b, "Denied %s (%s): %s.", res.ID, res.Kind, res.Title)
		if res.Reason != "" {
			fmt.Fprintf(&b, " Reason: %s.", res.Reason)
		}
		fmt.Fprintf(&b, " The identical operation is refused with APPROVAL_DENIED until %s; the agent must never re-issue it unchanged.", res.ExpiresAt)
	}
	if n := len(res.OtherPending); n > 0 && res.Bare {
		fmt.Fprintf(&b, " Warning: %d other record(s) are still pending (%s): a bare accept or deny decided only the newest; decide each of the others by id.", n, strings.Join(firstN(res.OtherPending, 5), ", "))
	} else if n > 0 {
		fmt.Fprintf(&b, " %d other record(s) are still pending (%s).", n, strings.Join(firstN(res.OtherPending, 5), ", "))
	}
	return b.String()
}
