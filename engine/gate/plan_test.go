package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
)

func minimalPlan() *ProposeRequest {
	return &ProposeRequest{Title: "Fix it", Objective: "Make the tests pass", Steps: []PlanStep{{Text: "read"}, {Text: "edit", Kind: "edit"}}}
}

func TestPlanValidation(t *testing.T) {
	long := strings.Repeat("x", MaxTextChars+1)
	steps := func(n int) []PlanStep {
		out := make([]PlanStep, n)
		for i := range out {
			out[i] = PlanStep{Text: fmt.Sprint("step ", i)}
		}
		return out
	}
	cases := []struct {
		name  string
		edit  func(p *ProposeRequest)
		code  envelope.Code
		field string
	}{
		{"ok", func(p *ProposeRequest) {}, "", ""},
		{"40 steps", func(p *ProposeRequest) { p.Steps = steps(40) }, "", ""},
		{"2000 chars", func(p *ProposeRequest) { p.Objective = strings.Repeat("é", MaxTextChars) }, "", ""},
		{"no title", func(p *ProposeRequest) { p.Title = " " }, envelope.InvalidInput, "title"},
		{"long title", func(p *ProposeRequest) { p.Title = long }, envelope.InvalidInput, "title"},
		{"no objective", func(p *ProposeRequest) { p.Objective = "" }, envelope.InvalidInput, "objective"},
		{"no steps", func(p *ProposeRequest) { p.Steps = nil }, envelope.InvalidInput, "steps"},
		{"41 steps", func(p *ProposeRequest) { p.Steps = steps(41) }, envelope.InvalidInput, "steps"},
		{"empty step", func(p *ProposeRequest) { p.Steps[1].Text = "" }, envelope.InvalidInput, "steps[1].text"},
		{"long step", func(p *ProposeRequest) { p.Steps[0].Text = long }, envelope.InvalidInput, "steps[0].text"},
		{"bad kind", func(p *ProposeRequest) { p.Steps[1].Kind = "deploy" }, envelope.InvalidInput, "steps[1].kind"},
		{"bad change", func(p *ProposeRequest) { p.Files = []PlanFile{{Path: "a.go", Change: "rename"}} }, envelope.InvalidInput, "files[0].change"},
		{"no path", func(p *ProposeRequest) { p.Files = []PlanFile{{Change: "create"}} }, envelope.InvalidInput, "files[0].path"},
		{"101 files", func(p *ProposeRequest) {
			for i := 0; i < 101; i++ {
				p.Files = append(p.Files, PlanFile{Path: fmt.Sprint("f", i), Change: "create"})
			}
		}, envelope.InvalidInput, "files"},
		{"escaping path", func(p *ProposeRequest) { p.Files = []PlanFile{{Path: "../outside", Change: "modify"}} }, envelope.PathEscape, "files[0].path"},
		{"41 commands", func(p *ProposeRequest) {
			for i := 0; i < 41; i++ {
				p.Commands = append(p.Commands, PlanCommand{Executable: "go"})
			}
		}, envelope.InvalidInput, "commands"},
		{"path executable", func(p *ProposeRequest) { p.Commands = []PlanCommand{{Executable: "/bin/sh"}} }, envelope.InvalidInput, "commands[0].executable"},
		{"long arg", func(p *ProposeRequest) { p.Commands = []PlanCommand{{Executable: "go", Args: []string{long}}} }, envelope.InvalidInput, "commands[0].args[0]"},
		{"41 risks", func(p *ProposeRequest) { p.Risks = make([]string, 41) }, envelope.InvalidInput, "risks"},
		{"empty question", func(p *ProposeRequest) { p.Questions = []string{"ok?", ""} }, envelope.InvalidInput, "questions[1]"},
		{"long risk", func(p *ProposeRequest) { p.Risks = []string{long} }, envelope.InvalidInput, "risks[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := testWS(t, Plan)
			p := minimalPlan()
			c.edit(p)
			_, err := Propose(context.Background(), ws, p)
			if c.code == "" {
				if err != nil {
					t.Fatalf("want ok: %v", err)
				}
				return
			}
			e, ok := err.(*envelope.Error)
			if !ok || e.Code != c.code {
				t.Fatalf("want %s, got %v", c.code, err)
			}
			if e.Details["field"] != c.field {
				t.Fatalf("field %v, want %s (%s)", e.Details["field"], c.field, e.Message)
			}
			if entries, _ := os.ReadDir(ws.Store.Path("plans")); len(entries) != 0 {
				t.Fatalf("a refused plan left %d plan directories", len(entries))
			}
		})
	}
}

func strictDecode(raw string, v any) error {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func TestPlanStepJSON(t *testing.T) {
	var p PlanDoc
	if err := strictDecode(`{"title":"t","objective":"o","steps":["a",{"text":"b","kind":"vcs"}]}`, &p); err != nil {
		t.Fatal(err)
	}
	if p.Steps[0] != (PlanStep{Text: "a"}) || p.Steps[1] != (PlanStep{Text: "b", Kind: "vcs"}) {
		t.Fatalf("steps: %+v", p.Steps)
	}
	if err := strictDecode(`{"steps":[{"text":"b","why":"x"}]}`, &p); err == nil {
		t.Fatal("an unknown step field must be refused")
	}
	if err := strictDecode(`{"steps":[3]}`, &p); err == nil {
		t.Fatal("a number is not a step")
	}
}

func TestProposeSupersedes(t *testing.T) {
	ws := testWS(t, Plan)
	advance := fixedClock(t, base)
	propose := func() PlanView {
		t.Helper()
		env, err := Propose(context.Background(), ws, minimalPlan())
		if err != nil {
			t.Fatal(err)
		}
		advance(time.Second)
		return env.Data.(PlanView)
	}
	first := propose()
	if first.Revision != 1 || first.Supersedes != nil || first.Status != Pending {
		t.Fatalf("first plan: %+v", first)
	}
	md, err := os.ReadFile(filepath.Join(ws.Root, filepath.FromSlash(first.PlanPath)))
	if err != nil || !strings.Contains(string(md), "# Plan: Fix it") || !strings.Contains(string(md), "2. [edit] edit") {
		t.Fatalf("plan.md: %v %q", err, md)
	}
	second := propose()
	if second.Revision != 2 || second.Supersedes == nil || *second.Supersedes != first.PlanID {
		t.Fatalf("second plan: %+v", second)
	}
	if _, err := Decide(ws, "accept", second.PlanID, "", Approved, true); err != nil {
		t.Fatal(err)
	}
	third := propose() // supersedes the approved plan too
	if third.Revision != 3 || *third.Supersedes != second.PlanID {
		t.Fatalf("third plan: %+v", third)
	}
	s, _ := Load(ws, Clock())
	for id, want := range map[string]string{first.PlanID: Superseded, second.PlanID: Superseded, third.PlanID: Pending} {
		if got := s.find(id).Status; got != want {
			t.Errorf("%s is %s, want %s", id, got, want)
		}
	}
	// An approved plan no longer exists, so Plan mode is locked again.
	if _, err := Check(ws, Operation{Kind: "command", Hash: "h", Resume: Resume{Tool: "x"}}); envelope.CodeOf(err) != envelope.ApprovalRequired {
		t.Fatalf("after superseding the approved plan: %v", err)
	}
}

func TestPlanCompleteAndCurrent(t *testing.T) {
	ws := testWS(t, Plan)
	fixedClock(t, base)
	ctx := context.Background()
	env, err := PlanCurrent(ctx, ws, &PlanCurrentRequest{})
	if err != nil || env.Data.(map[string]string)["status"] != "none" {
		t.Fatalf("current with no plan: %v %+v", err, env.Data)
	}
	if _, err := PlanComplete(ctx, ws, &PlanCompleteRequest{}); envelope.CodeOf(err) != envelope.NotFound {
		t.Fatalf("complete with no plan: %v", err)
	}
	env, _ = Propose(ctx, ws, minimalPlan())
	id := env.Data.(PlanView).PlanID
	for _, req := range []*PlanCompleteRequest{{}, {PlanID: id}} {
		_, err := PlanComplete(ctx, ws, req)
		e, ok := err.(*envelope.Error)
		if !ok || e.Code != envelope.TransactionState || !strings.Contains(e.Message, id) || !strings.Contains(e.Message, "stop and wait") {
			t.Fatalf("complete on an unaccepted plan: %v", err)
		}
	}
	env, _ = PlanCurrent(ctx, ws, &PlanCurrentRequest{})
	if v := env.Data.(PlanView); v.PlanID != id || v.Status != Pending || v.Plan == nil || v.Markdown == "" {
		t.Fatalf("current: %+v", v)
	}
	if _, err := Decide(ws, "accept", id, "", Approved, true); err != nil {
		t.Fatal(err)
	}
	env, err = PlanComplete(ctx, ws, &PlanCompleteRequest{Summary: "all done"})
	if err != nil || env.Data.(PlanView).Status != Completed {
		t.Fatalf("complete: %v", err)
	}
	if _, err := PlanComplete(ctx, ws, &PlanCompleteRequest{PlanID: id}); envelope.CodeOf(err) != envelope.TransactionState {
		t.Fatalf("complete twice: %v", err)
	}
	env, _ = PlanShow(ctx, ws, &PlanShowRequest{PlanID: id})
	if v := env.Data.(PlanView); v.Status != Completed || v.Summary != "all done" {
		t.Fatalf("show after complete: %+v", v)
	}
	if _, err := PlanShow(ctx, ws, &PlanShowRequest{PlanID: "plan_nope"}); envelope.CodeOf(err) != envelope.NotFound {
		t.Fatalf("show unknown: %v", err)
	}
}

func TestPlanList(t *testing.T) {
	ws := testWS(t, Plan)
	advance := fixedClock(t, base)
	var ids []string
	for i := 0; i < 25; i++ {
		env, err := Propose(context.Background(), ws, minimalPlan())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, env.Data.(PlanView).PlanID)
		advance(time.Minute)
	}
	for _, c := range []struct{ limit, want int }{{0, 20}, {1, 1}, {100, 25}} {
		env, err := PlanListAll(context.Background(), ws, &PlanListRequest{Limit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		l := env.Data.(PlanList)
		if len(l.Plans) != c.want || l.Total != 25 || l.Plans[0].PlanID != ids[24] {
			t.Fatalf("limit %d: %d plans, first %s", c.limit, len(l.Plans), l.Plans[0].PlanID)
		}
	}
	for _, bad := range []int{-1, 101} {
		if _, err := PlanListAll(context.Background(), ws, &PlanListRequest{Limit: bad}); envelope.CodeOf(err) != envelope.InvalidInput {
			t.Fatalf("limit %d: %v", bad, err)
		}
	}
}

func TestProposeRetention(t *testing.T) {
	ws := testWS(t, Manual)
	p := minimalPlan()
	for i := 0; i < 12; i++ {
		p.Steps = append(p.Steps, PlanStep{Text: fmt.Sprint("extra ", i)})
	}
	env, err := Propose(context.Background(), ws, p)
	if err != nil {
		t.Fatal(err)
	}
	v := env.Data.(PlanView)
	facts := strings.Join(env.Retention.Facts, "\n")
	if !strings.Contains(facts, "plan "+v.PlanID+" pending approval: Fix it") || !strings.Contains(facts, "step 10: extra 7") || strings.Contains(facts, "step 11:") {
		t.Fatalf("facts: %s", facts)
	}
	if !strings.Contains(env.Summary, "each mutating call still needs its own /accept") || !strings.Contains(v.Instruction, "shared checklist") {
		t.Fatalf("Manual mode wording missing: %s / %s", env.Summary, v.Instruction)
	}
	raw, _ := json.Marshal(env.Retention.Omit)
	if string(raw) != `["data.markdown","data.plan.steps"]` {
		t.Fatalf("omit: %s", raw)
	}
}
