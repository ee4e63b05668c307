package gate

// This file is workspace_plan: plans are records in the same state file as
// approvals (kind "plan"), with their text under .agentic/plans/<plan_id>/.
// Plan actions are never gated.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Plan limits: what one plan may hold, and the page size of plan lists.
const (
	MaxPlanSteps    = 40
	MaxPlanFiles    = 100
	MaxPlanCommands = 40
	MaxPlanItems    = 40 // risks, questions
	DefaultPlanList = 20
	MaxPlanList     = 100
)

var (
	stepKinds   = []string{"edit", "command", "vcs", "research", "other"}
	fileChanges = []string{"create", "modify", "delete", "move"}
)

// PlanStep is one step: a string, or {text, kind}.
type PlanStep struct {
	Text string `json:"text"`
	Kind string `json:"kind,omitempty"`
}

// UnmarshalJSON accepts a bare string or an object with text and kind.
func (s *PlanStep) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		*s = PlanStep{}
		return json.Unmarshal(raw, &s.Text)
	}
	type plain PlanStep
	var p plain
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("a step is a string or {\"text\", \"kind\"} (%v)", err)
	}
	*s = PlanStep(p)
	return nil
}

// JSONSchema is the shape UnmarshalJSON accepts, for generated tool schemas
// (engine/schema): a string, or {text, kind}.
func (PlanStep) JSONSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "object", "required": []string{"text"}, "additionalProperties": false,
			"properties": map[string]any{
				"text": map[string]any{"type": "string", "description": "what the step does, at most 2000 characters"},
				"kind": map[string]any{"type": "string", "enum": stepKinds, "description": "the kind of action the step takes"}}},
	}}
}

// PlanFile is a file the plan expects to touch.
type PlanFile struct {
	Path   string `json:"path" doc:"a file inside the workspace, relative to its root"`
	Change string `json:"change" doc:"what happens to it" enum:"create,modify,delete,move"`
}

// PlanCommand is a command the plan expects to run (a bare executable
// name; the command policy still decides when it runs).
type PlanCommand struct {
	Executable string   `json:"executable" doc:"a bare executable name such as go (no path, no arguments); the command policy still decides when it runs"`
	Args       []string `json:"args,omitempty" doc:"its arguments, each at most 2000 characters"`
}

// PlanDoc is the plan itself, as proposed (and stored as plan.json).
type PlanDoc struct {
	Title     string        `json:"title" doc:"one line naming the plan, at most 2000 characters"`
	Objective string        `json:"objective" doc:"what the plan achieves and how success is checked, at most 2000 characters"`
	Steps     []PlanStep    `json:"steps" doc:"the steps in order, 1 to 40: each a string, or {text, kind} with kind one of edit, command, vcs, research, other"`
	Files     []PlanFile    `json:"files,omitempty" doc:"files the plan expects to touch, at most 100"`
	Commands  []PlanCommand `json:"commands,omitempty" doc:"commands the plan expects to run, at most 40"`
	Risks     []string      `json:"risks,omitempty" doc:"what could go wrong, at most 40 entries"`
	Questions []string      `json:"questions,omitempty" doc:"open questions for the user, at most 40 entries"`
}

// ProposeRequest is plan propose: the plan document.
type ProposeRequest = PlanDoc

// PlanCurrentRequest is plan current (no arguments).
type PlanCurrentRequest struct{}

// PlanShowRequest is plan show.
type PlanShowRequest struct {
	PlanID string `json:"plan_id" doc:"the plan_ id (a unique prefix works)"`
}

// PlanCompleteRequest is plan complete; plan_id defaults to the approved plan.
type PlanCompleteRequest struct {
	PlanID  string `json:"plan_id,omitempty" doc:"the plan_ id to end (a unique prefix works); default: the approved plan"`
	Summary string `json:"summary,omitempty" doc:"what was done, kept with the plan; at most 2000 characters"`
}

// PlanListRequest is plan list.
type PlanListRequest struct {
	Limit int `json:"limit,omitempty" doc:"most plans returned, newest first, 1 to 100; default 20"`
}

// PlanView is a plan as every plan action returns it.
type PlanView struct {
	PlanID      string    `json:"planId"`
	Status      string    `json:"status"`
	Revision    int       `json:"revision"`
	Supersedes  *string   `json:"supersedes"`
	Title       string    `json:"title"`
	PlanPath    string    `json:"planPath"`
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	DecidedAt   time.Time `json:"decidedAt,omitzero"`
	Note        string    `json:"note,omitempty"`
	Reason      string    `json:"reason,omitempty"` // a denial's reason
	Summary     string    `json:"summary,omitempty"`
	Markdown    string    `json:"markdown,omitempty"`
	Plan        *PlanDoc  `json:"plan,omitempty"`
	Instruction string    `json:"instruction,omitempty"`
}

// PlanList is the data of plan.list.
type PlanList struct {
	Plans []PlanView `json:"plans"`
	Total int        `json:"total"`
}

func view(r *Record) PlanView {
	v := PlanView{PlanID: r.ID, Status: r.Status, Revision: r.Revision, Title: r.Title, PlanPath: r.PlanPath,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, DecidedAt: r.DecidedAt, Note: r.Note, Summary: r.Summary}
	if r.Supersedes != "" {
		s := r.Supersedes
		v.Supersedes = &s
	}
	if r.Status == Denied {
		v.Note, v.Reason = "", r.Note // a denial's note is its reason
	}
	return v
}

// withDocument adds the plan's markdown and JSON from its directory; a
// plan whose files are gone is still reported, without them.
func withDocument(ws *workspace.Workspace, v *PlanView) {
	if md, err := os.ReadFile(ws.Store.Path("plans", v.PlanID, "plan.md")); err == nil {
		v.Markdown = string(md)
	}
	var doc PlanDoc
	if ok, err := ws.Store.ReadJSON(ws.Store.Path("plans", v.PlanID, "plan.json"), &doc); ok && err == nil {
		v.Plan = &doc
	}
}

func badField(field, format string, args ...any) error {
	return envelope.Errorf(envelope.InvalidInput, "%s %s", field, fmt.Sprintf(format, args...)).With("field", field)
}

func checkText(field, s string, required bool) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if required {
			return "", badField(field, "is required and must not be empty")
		}
		return "", badField(field, "must not be empty (leave the entry out instead)")
	}
	if n := utf8.RuneCountInString(s); n > MaxTextChars {
		return "", badField(field, "is %d characters; text fields are limited to %d", n, MaxTextChars)
	}
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return "", badField(field, "must be valid UTF-8 text without NUL bytes")
	}
	return s, nil
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// validatePlan checks the plan limits and returns the normalized plan:
// text trimmed, file paths root-relative with forward slashes.
func validatePlan(ws *workspace.Workspace, in *PlanDoc) (PlanDoc, error) {
	var p PlanDoc
	var err error
	if strings.TrimSpace(in.Title) == "" && strings.TrimSpace(in.Objective) == "" && len(in.Steps) == 0 {
		return p, badField("title", "is required: pass the plan as JSON with --input FILE ({\"title\", \"objective\", \"steps\": [...]})")
	}
	if p.Title, err = checkText("title", in.Title, true); err != nil {
		return p, err
	}
	p.Title = strings.Join(strings.Fields(p.Title), " ") // one line: it heads plan.md and listings
	if p.Objective, err = checkText("objective", in.Objective, true); err != nil {
		return p, err
	}
	if len(in.Steps) == 0 || len(in.Steps) > MaxPlanSteps {
		return p, badField("steps", "has %d entries; a plan has 1 to %d steps", len(in.Steps), MaxPlanSteps)
	}
	for i, s := range in.Steps {
		f := fmt.Sprintf("steps[%d]", i)
		text, err := checkText(f+".text", s.Text, true)
		if err != nil {
			return p, err
		}
		if s.Kind != "" && !oneOf(s.Kind, stepKinds) {
			return p, badField(f+".kind", "is %q; it is one of %s", s.Kind, strings.Join(stepKinds, ", "))
		}
		p.Steps = append(p.Steps, PlanStep{Text: text, Kind: s.Kind})
	}
	if len(in.Files) > MaxPlanFiles {
		return p, badField("files", "has %d entries; at most %d", len(in.Files), MaxPlanFiles)
	}
	for i, fl := range in.Files {
		f := fmt.Sprintf("files[%d]", i)
		raw, err := checkText(f+".path", fl.Path, true)
		if err != nil {
			return p, err
		}
		if !oneOf(fl.Change, fileChanges) {
			return p, badField(f+".change", "is %q; it is one of %s", fl.Change, strings.Join(fileChanges, ", "))
		}
		res, err := ws.Jail.Resolve(raw, workspace.Read)
		if err != nil {
			if e, ok := err.(*envelope.Error); ok {
				e.With("field", f+".path")
			}
			return p, err
		}
		if res.Outside {
			return p, badField(f+".path", "%q lies in a read-only allowPaths root; a plan names files inside the workspace", raw)
		}
		p.Files = append(p.Files, PlanFile{Path: res.Rel, Change: fl.Change})
	}
	if len(in.Commands) > MaxPlanCommands {
		return p, badField("commands", "has %d entries; at most %d", len(in.Commands), MaxPlanCommands)
	}
	for i, c := range in.Commands {
		f := fmt.Sprintf("commands[%d]", i)
		exe, err := checkText(f+".executable", c.Executable, true)
		if err != nil {
			return p, err
		}
		if strings.ContainsAny(exe, `/\ `+"\t\n") {
			return p, badField(f+".executable", "is %q; it is a bare executable name (arguments go in args)", exe)
		}
		pc := PlanCommand{Executable: exe}
		for j, a := range c.Args {
			if n := utf8.RuneCountInString(a); n > MaxTextChars {
				return p, badField(fmt.Sprintf("%s.args[%d]", f, j), "is %d characters; text fields are limited to %d", n, MaxTextChars)
			}
			pc.Args = append(pc.Args, a)
		}
		p.Commands = append(p.Commands, pc)
	}
	for _, list := range []struct {
		name string
		in   []string
		out  *[]string
	}{{"risks", in.Risks, &p.Risks}, {"questions", in.Questions, &p.Questions}} {
		if len(list.in) > MaxPlanItems {
			return p, badField(list.name, "has %d entries; at most %d", len(list.in), MaxPlanItems)
		}
		for i, s := range list.in {
			t, err := checkText(fmt.Sprintf("%s[%d]", list.name, i), s, false)
			if err != nil {
				return p, err
			}
			*list.out = append(*list.out, t)
		}
	}
	return p, nil
}

// markdown renders plan.md.
func markdown(id string, revision int, supersedes string, p *PlanDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan: %s\n\n", p.Title)
	fmt.Fprintf(&b, "- id: %s\n- revision: %d\n", id, revision)
	if supersedes != "" {
		fmt.Fprintf(&b, "- supersedes: %s\n", supersedes)
	}
	b.WriteString("\n## Objective\n\n")
	b.WriteString(p.Objective + "\n")
	b.WriteString("\n## Steps\n\n")
	for i, s := range p.Steps {
		kind := ""
		if s.Kind != "" {
			kind = "[" + s.Kind + "] "
		}
		fmt.Fprintf(&b, "%d. %s%s\n", i+1, kind, indent(s.Text, "   "))
	}
	if len(p.Files) > 0 {
		b.WriteString("\n## Files\n\n")
		for _, f := range p.Files {
			fmt.Fprintf(&b, "- %s `%s`\n", f.Change, f.Path)
		}
	}
	if len(p.Commands) > 0 {
		b.WriteString("\n## Commands\n\n")
		for _, c := range p.Commands {
			fmt.Fprintf(&b, "- `%s`\n", strings.Join(append([]string{c.Executable}, c.Args...), " "))
		}
	}
	for _, sec := range []struct {
		title string
		items []string
	}{{"Risks", p.Risks}, {"Questions", p.Questions}} {
		if len(sec.items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", sec.title)
		for _, it := range sec.items {
			fmt.Fprintf(&b, "- %s\n", indent(it, "  "))
		}
	}
	return b.String()
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

// Propose records a new pending plan. Under the store lock it writes
// .agentic/plans/<id>/plan.md and plan.json before the record exists, then
// supersedes any pending or approved plan.
func Propose(ctx context.Context, ws *workspace.Workspace, req *ProposeRequest) (envelope.Envelope, error) {
	doc, err := validatePlan(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	id := store.NewID("plan")
	dir := ws.Store.Path("plans", id)
	var v PlanView
	var superseded []string
	err = update(ws, func(s *State, now time.Time) error {
		var prev *Record
		for i := range s.Records {
			r := &s.Records[i]
			if r.Kind != "plan" || (r.Status != Pending && r.Status != Approved) {
				continue
			}
			if prev == nil || !r.CreatedAt.Before(prev.CreatedAt) {
				prev = r
			}
		}
		rec := Record{ID: id, Kind: "plan", Status: Pending, Title: doc.Title, Revision: 1,
			PlanPath: ws.Store.Rel(ws.Store.Path("plans", id, "plan.md")), CreatedAt: now, ExpiresAt: now.Add(Lifetime)}
		if prev != nil {
			rec.Revision = prev.Revision + 1
			rec.Supersedes = prev.ID
		}
		md := markdown(id, rec.Revision, rec.Supersedes, &doc)
		raw, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if err := store.WriteFile(ws.Store.Path("plans", id, "plan.json"), append(raw, '\n'), 0o644); err != nil {
			return err
		}
		if err := store.WriteFile(ws.Store.Path("plans", id, "plan.md"), []byte(md), 0o644); err != nil {
			return err
		}
		for i := range s.Records {
			r := &s.Records[i]
			if r.Kind == "plan" && (r.Status == Pending || r.Status == Approved) {
				r.Status = Superseded
				r.DecidedAt = now
				superseded = append(superseded, r.ID)
			}
		}
		s.Records = append(s.Records, rec)
		v = view(&rec)
		v.Markdown = md
		v.Plan = &doc
		return nil
	})
	if err != nil {
		os.RemoveAll(dir) // no record names it
		return envelope.Envelope{}, err
	}
	manual := ws.Settings.PermissionMode == Manual
	v.Instruction = fmt.Sprintf("Restate this plan to the user in your reply (title, objective, steps, files, commands, risks, questions), then stop: the user decides with /accept %s or /deny %s <reason>. Do not call mutating tools, and do not call plan complete or plan show to move it forward: nothing changes until the user replies.", id, id)
	if manual {
		v.Instruction += " Manual mode: an approved plan is a shared checklist only; each mutating call is still staged and needs its own /accept."
	}
	summary := fmt.Sprintf("Plan %s (revision %d) pending approval: %s.", id, v.Revision, doc.Title)
	if v.Supersedes != nil {
		summary += fmt.Sprintf(" It supersedes %s.", *v.Supersedes)
	}
	summary += fmt.Sprintf(" Restate the plan to the user and stop; the user replies /accept %s (or /deny %s <reason>). The plan is %s.", id, id, v.PlanPath)
	if manual {
		summary += " Manual mode: each mutating call still needs its own /accept; the plan is a shared checklist."
	}
	env := envelope.New("", summary, v)
	env.Retention.Importance = envelope.Critical
	env.Fact("plan %s pending approval: %s", id, doc.Title)
	env.Fact("plan path %s", v.PlanPath)
	for _, old := range superseded {
		env.Fact("plan %s superseded by %s", old, id)
	}
	for i, s := range doc.Steps {
		if i == 10 {
			env.Fact("%d more steps in %s", len(doc.Steps)-10, v.PlanPath)
			break
		}
		env.Fact("step %d: %s", i+1, clip(s.Text, 200))
	}
	env.Fact("permission mode %s (%d)", workspace.Title(workspace.ModeName(ws.Settings.PermissionMode)), ws.Settings.PermissionMode)
	env.Omit("data.markdown", "data.plan.steps")
	return env, nil
}

// PlanCurrent returns the pending plan, else the approved one, else the
// newest plan when the human denied it (with when and why), else
// {status: "none"}.
func PlanCurrent(ctx context.Context, ws *workspace.Workspace, req *PlanCurrentRequest) (envelope.Envelope, error) {
	now := Clock()
	s, err := Load(ws, now)
	if err != nil {
		return envelope.Envelope{}, err
	}
	r := s.Plan(Pending)
	if r == nil {
		r = s.Plan(Approved)
	}
	if r == nil {
		if newest := s.Newest(func(r *Record) bool { return r.Kind == "plan" }); len(newest) > 0 && newest[0].Status == Denied {
			r = &newest[0]
		}
	}
	if r == nil {
		summary := "No plan is pending or approved."
		if ws.Settings.PermissionMode == Plan {
			summary += " Plan mode: propose one with `aw plan propose` (workspace_plan action propose) and wait for the user's /accept before any mutating call."
		}
		return envelope.New("", summary, map[string]string{"status": "none"}), nil
	}
	v := view(r)
	withDocument(ws, &v)
	env := envelope.New("", planSummary(ws, &v, now), v)
	planFacts(&env, &v)
	env.Omit("data.markdown", "data.plan.steps")
	return env, nil
}

// planSummary says what the plan's status means for the agent.
func planSummary(ws *workspace.Workspace, v *PlanView, now time.Time) string {
	head := fmt.Sprintf("Plan %s (revision %d, proposed %s ago) is %s: %s.", v.PlanID, v.Revision, age(now.Sub(v.CreatedAt)), v.Status, v.Title)
	switch v.Status {
	case Pending:
		return head + fmt.Sprintf(" It waits for the user's decision: stop and wait for /accept %s (or /deny); nothing mutating runs until the user replies, and calling complete or show again cannot change that. The plan is %s.", v.PlanID, v.PlanPath)
	case Approved:
		if ws.Settings.PermissionMode == Manual {
			return head + " Manual mode: the plan is a shared checklist; each mutating call is still staged for its own /accept."
		}
		return head + fmt.Sprintf(" Mutating calls run until `aw plan complete %s`; it expires %s.", v.PlanID, v.ExpiresAt.UTC().Format(time.RFC3339))
	case Denied:
		why := "without a reason"
		if v.Reason != "" {
			why = fmt.Sprintf("saying %q", v.Reason)
		}
		return head + fmt.Sprintf(" The user denied it %s ago, %s. Do not propose it again unchanged: revise it to address that, or ask the user.", age(now.Sub(v.DecidedAt)), why)
	}
	return head
}

func planFacts(env *envelope.Envelope, v *PlanView) {
	state := v.Status
	if state == Pending {
		state = "pending approval"
	}
	env.Fact("plan %s %s: %s", v.PlanID, state, v.Title)
	env.Fact("plan path %s", v.PlanPath)
}

// age renders a duration for people: 45s, 12m, 3h5m.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	h := int(d.Hours())
	if m := int(d.Minutes()) % 60; m != 0 {
		return fmt.Sprintf("%dh%dm", h, m)
	}
	return fmt.Sprintf("%dh", h)
}

// PlanShow returns one plan by id.
func PlanShow(ctx context.Context, ws *workspace.Workspace, req *PlanShowRequest) (envelope.Envelope, error) {
	id := strings.TrimSpace(req.PlanID)
	if id == "" {
		return envelope.Envelope{}, badField("plan_id", "is required; `aw plan list` lists the plans")
	}
	now := Clock()
	s, err := Load(ws, now)
	if err != nil {
		return envelope.Envelope{}, err
	}
	r := s.find(id)
	if r == nil || r.Kind != "plan" {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "no plan %s; `aw plan list` lists the plans", id).With("planId", id)
	}
	v := view(r)
	withDocument(ws, &v)
	env := envelope.New("", planSummary(ws, &v, now), v)
	planFacts(&env, &v)
	env.Omit("data.markdown", "data.plan.steps")
	return env, nil
}

// PlanComplete ends the approved plan (by default the approved one). A plan
// the user has not accepted cannot be completed: that is the agent's cue to
// stop and wait, and the message says so.
func PlanComplete(ctx context.Context, ws *workspace.Workspace, req *PlanCompleteRequest) (envelope.Envelope, error) {
	summary, err := checkOptional("summary", req.Summary)
	if err != nil {
		return envelope.Envelope{}, err
	}
	id := strings.TrimSpace(req.PlanID)
	var v PlanView
	err = update(ws, func(s *State, now time.Time) error {
		var r *Record
		if id == "" {
			if p := s.Plan(Approved); p != nil {
				r = s.find(p.ID)
			} else if p := s.Plan(Pending); p != nil {
				r = s.find(p.ID)
			} else {
				return envelope.Errorf(envelope.NotFound, "there is no approved plan to complete; `aw plan list` shows the plans")
			}
		} else if r = s.find(id); r == nil || r.Kind != "plan" {
			return envelope.Errorf(envelope.NotFound, "no plan %s; `aw plan list` lists the plans", id).With("planId", id)
		}
		switch r.Status {
		case Approved:
		case Pending:
			return envelope.Errorf(envelope.TransactionState,
				"plan %s has not been accepted by the user: stop and wait. Nothing runs until the user replies /accept %s (or /deny %s); calling complete or show again cannot change that", r.ID, r.ID, r.ID).
				With("planId", r.ID).With("status", r.Status)
		default:
			return envelope.Errorf(envelope.TransactionState,
				"plan %s is %s, not approved: only the approved plan can be completed; `aw plan current` shows the plan in force", r.ID, r.Status).
				With("planId", r.ID).With("status", r.Status)
		}
		r.Status = Completed
		r.Summary = summary
		r.DecidedAt = now
		v = view(r)
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	msg := fmt.Sprintf("Plan %s completed: %s.", v.PlanID, v.Title)
	if ws.Settings.PermissionMode == Plan {
		msg += " Plan mode: mutating calls are locked again until the user approves a new plan."
	}
	env := envelope.New("", msg, v)
	env.Retention.Importance = envelope.High
	env.Fact("plan %s completed: %s", v.PlanID, v.Title)
	return env, nil
}

func checkOptional(field, s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	return checkText(field, s, false)
}

// PlanListAll lists plans newest first, limit 1-100 (default 20).
func PlanListAll(ctx context.Context, ws *workspace.Workspace, req *PlanListRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, DefaultPlanList, MaxPlanList)
	if err != nil {
		return envelope.Envelope{}, err
	}
	s, err := Load(ws, Clock())
	if err != nil {
		return envelope.Envelope{}, err
	}
	plans := byNewest(s, func(r *Record) bool { return r.Kind == "plan" })
	data := PlanList{Plans: []PlanView{}, Total: len(plans)}
	for i := range plans {
		if i == limit {
			break
		}
		data.Plans = append(data.Plans, view(&plans[i]))
	}
	summary := fmt.Sprintf("%d plans, newest first.", len(plans))
	if len(plans) > limit {
		summary = fmt.Sprintf("%d plans, newest first (showing %d; raise --limit to see more).", len(plans), limit)
	}
	if len(plans) == 0 {
		summary = "No plans yet."
	}
	env := envelope.New("", summary, data)
	for i, p := range data.Plans {
		if i == 5 {
			break
		}
		env.Fact("plan %s %s: %s", p.PlanID, p.Status, clip(p.Title, 60))
	}
	return env, nil
}
