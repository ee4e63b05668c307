package schema_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/research"
	"github.com/agentic-workspace/aw/engine/schema"
	"github.com/agentic-workspace/aw/engine/tasks"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// undocumentedPackages are the packages whose request types do not carry
// doc tags yet: their actions are skipped by TestEveryParameterDocumented.
// Empty it as they gain docs.
var undocumentedPackages = map[string]bool{}

func undocumented(r *dispatch.Action) bool {
	return undocumentedPackages[r.RequestType().PkgPath()]
}

// badDocs walks a schema's properties (nested objects, array items and
// anyOf alternatives too) and reports each property whose description is
// missing or only the generic "Used by ..." line.
func badDocs(at string, s schema.Schema, out *[]string) {
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			ps := toSchema(p)
			where := at + "." + name
			if name != "action" || at != "" {
				d, _ := ps["description"].(string)
				if strings.TrimSpace(d) == "" || strings.HasPrefix(d, "Used by") || strings.Contains(d, "(no description)") {
					*out = append(*out, fmt.Sprintf("%s: %q", where, d))
				}
			}
			badDocs(where, ps, out)
		}
	}
	if items, ok := s["items"]; ok {
		badDocs(at+"[]", toSchema(items), out)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			badDocs(at, toSchema(a), out)
		}
	}
}

// toSchema normalises a schema through its JSON, as a client sees it (the
// JSONSchema methods return their own map and slice types).
func toSchema(v any) schema.Schema {
	raw, _ := json.Marshal(v)
	var s schema.Schema
	json.Unmarshal(raw, &s)
	return s
}

// Every argument of every action of every tool says what it means: its own
// schema and the tool's merged one, nested fields included. aw's own nouns
// (config, approval, store) are held to the same.
func TestEveryParameterDocumented(t *testing.T) {
	for _, r := range dispatch.Table() {
		if undocumented(r) {
			continue
		}
		var bad []string
		badDocs("", schema.Action(r), &bad)
		if len(bad) > 0 {
			slices.Sort(bad)
			t.Errorf("%s: arguments without a description: %s", r.Operation(), strings.Join(bad, "; "))
		}
	}
	for _, tool := range schema.All() {
		all := true
		for _, r := range tool.Rows() {
			if undocumented(r) {
				continue
			}
			all = false
		}
		if all {
			continue
		}
		if d, _ := tool.InputSchema["properties"].(schema.Schema)["action"].(schema.Schema)["description"].(string); d == "" {
			t.Errorf("%s: the action argument has no description", tool.Name)
		}
		var bad []string
		badDocs("", tool.InputSchema, &bad)
		for _, b := range bad {
			// A merged property used only by skipped actions may stay generic.
			name := strings.SplitN(strings.TrimPrefix(b, "."), ":", 2)[0]
			name = strings.SplitN(strings.SplitN(name, ".", 2)[0], "[", 2)[0]
			users := 0
			for _, r := range tool.Rows() {
				if _, ok := schema.Action(r)["properties"].(schema.Schema)[name]; ok && !undocumented(r) {
					users++
				}
			}
			if users > 0 {
				t.Errorf("%s: %s", tool.Name, b)
			}
		}
	}
}

// The merged description says which action means what.
func TestMergedDescriptions(t *testing.T) {
	inspect := tool(t, "workspace_inspect")
	props := inspect.InputSchema["properties"].(schema.Schema)
	path := props["path"].(schema.Schema)["description"].(string)
	for _, want := range []string{"list: directory to list", "read: file to read", "stat: file or directory"} {
		if !strings.Contains(path, want) {
			t.Errorf("inspect path description %q lacks %q", path, want)
		}
	}
	if d := props["fixed"].(schema.Schema)["description"].(string); !strings.HasSuffix(d, "(search)") {
		t.Errorf("a property only search takes should name it: %q", d)
	}
	notes := tool(t, "workspace_notes").InputSchema["properties"].(schema.Schema)
	if d := notes["memory"].(schema.Schema)["description"].(string); strings.Contains(d, "(") && strings.HasSuffix(d, ")") {
		t.Errorf("a property every action shares should not list them: %q", d)
	}
	action := props["action"].(schema.Schema)["description"].(string)
	if !strings.Contains(action, "read: path") || !strings.Contains(action, "search: pattern") {
		t.Errorf("the action argument should list each action's required arguments: %q", action)
	}
	for _, tl := range schema.All() {
		for _, r := range tl.Rows() {
			if !strings.Contains(tl.Description, "- "+r.Name) {
				t.Errorf("%s's description has no line for %s", tl.Name, r.Name)
			}
		}
		// Clients that pass schemas on to model APIs refuse top-level
		// composition keywords (see the package comment).
		for _, k := range []string{"oneOf", "anyOf", "allOf", "if", "not"} {
			if _, ok := tl.InputSchema[k]; ok {
				t.Errorf("%s's input schema has a top-level %s", tl.Name, k)
			}
		}
	}
}

// The closed sets the engine checks are enums in the schema, with exactly
// the engine's values.
func TestClosedSetsAreEnums(t *testing.T) {
	statuses := tasks.Statuses
	for _, c := range []struct {
		tool, action string
		path         []string
		want         []string
	}{
		{"workspace_edit", "preview", []string{"operations", "[]", "type"}, []string{"create", "rewrite", "replace", "splice", "copy", "move", "delete", "mkdir"}},
		{"workspace_edit", "apply", []string{"operations", "[]", "type"}, []string{"create", "rewrite", "replace", "splice", "copy", "move", "delete", "mkdir"}},
		{"workspace_research", "note", []string{"kind"}, research.NoteKinds},
		{"workspace_research", "search", []string{"provider"}, research.Providers},
		{"workspace_tasks", "create", []string{"items", "[]", "status"}, statuses},
		{"workspace_tasks", "create", []string{"items", "[]", "priority"}, tasks.Priorities},
		{"workspace_tasks", "add", []string{"items", "[]", "priority"}, tasks.Priorities},
		{"workspace_tasks", "update", []string{"status"}, statuses},
		{"workspace_tasks", "update", []string{"priority"}, tasks.Priorities},
		{"workspace_tasks", "todo_write", []string{"todos", "[]", "status"}, []string{tasks.Pending, tasks.InProgress, tasks.Completed}},
		{"workspace_plan", "propose", []string{"files", "[]", "change"}, []string{"create", "modify", "delete", "move"}},
		{"workspace_vcs", "issue_list", []string{"state"}, []string{"open", "closed", "all"}},
		{"workspace_vcs", "pr_list", []string{"state"}, []string{"open", "closed", "all"}},
	} {
		tl := tool(t, c.tool)
		s := tl.ActionSchemas[c.action]
		for _, p := range c.path {
			if p == "[]" {
				s = toSchema(s["items"])
			} else {
				s = toSchema(toSchema(s["properties"])[p])
			}
		}
		var got []string
		for _, v := range toSchema(s)["enum"].([]any) {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s %v: enum %v, the engine accepts %v", c.tool, c.action, c.path, got, c.want)
		}
	}
	// A plan step's kind sits in the object alternative of its anyOf.
	steps := toSchema(toSchema(tool(t, "workspace_plan").ActionSchemas["propose"]["properties"])["steps"])
	obj := toSchema(toSchema(steps["items"])["anyOf"].([]any)[1])
	if kinds := toSchema(toSchema(obj["properties"])["kind"])["enum"]; len(kinds.([]any)) != 5 {
		t.Errorf("plan step kinds %v", kinds)
	}
}

// Effects are declared consistently with the tier and gate of each row.
func TestEffectsMatchTheTable(t *testing.T) {
	for _, r := range dispatch.Table() {
		e := r.Effect
		w := e&dispatch.Writes != 0
		switch {
		case r.Tier == workspace.TierWrite && !w:
			t.Errorf("%s is of the write tier but does not declare Writes", r.Operation())
		case r.Gate != "" && !w:
			t.Errorf("%s is gated (%s) but does not declare Writes", r.Operation(), r.Gate)
		case e&(dispatch.Destroys|dispatch.Idempotent) != 0 && !w:
			t.Errorf("%s declares Destroys or Idempotent without Writes", r.Operation())
		case e&dispatch.Network != 0 && r.Tier != workspace.TierExec:
			t.Errorf("%s reaches the network below the exec tier", r.Operation())
		}
	}
}

// The hints follow the rule: read-only only when no offered action
// writes, destructive when one can destroy, idempotent when every write is,
// open world when one reaches the network.
func TestHintsFollowTheEffects(t *testing.T) {
	check := func(name string, rows []*dispatch.Action) {
		want := schema.Hints{ReadOnly: true, Idempotent: true}
		for _, r := range rows {
			if r.Effect&dispatch.Writes != 0 {
				want.ReadOnly = false
				if r.Effect&dispatch.Idempotent == 0 {
					want.Idempotent = false
				}
			}
			if r.Effect&dispatch.Destroys != 0 {
				want.Destructive = true
			}
			if r.Effect&dispatch.Network != 0 {
				want.OpenWorld = true
			}
		}
		if got := schema.Build(rows).Hints; got != want {
			t.Errorf("%s: hints %+v, want %+v", name, got, want)
		}
	}
	for _, tl := range schema.All() {
		check(tl.Name, tl.Rows())
		for _, tier := range []workspace.Tier{workspace.TierRead, workspace.TierWrite} {
			var rows []*dispatch.Action
			for _, r := range tl.Rows() {
				if r.Tier <= tier {
					rows = append(rows, r)
				}
			}
			if len(rows) > 0 {
				check(fmt.Sprintf("%s at --tier %s", tl.Name, tier), rows)
			}
		}
	}
	// What the table says today, tool by tool (every action offered).
	for _, c := range []struct {
		tool                                         string
		readOnly, destructive, idempotent, openWorld bool
	}{
		{"workspace_inspect", true, false, true, false},
		{"workspace_edit", false, true, false, false},
		{"workspace_notes", false, true, false, false},
		{"workspace_plan", false, false, false, false},
		{"workspace_tasks", false, true, false, false},
		{"workspace_research", false, false, false, true},
		{"workspace_vcs", false, true, false, true},
		{"workspace_command", false, true, false, true},
		{"workspace_browser", false, true, false, true},
	} {
		want := schema.Hints{ReadOnly: c.readOnly, Destructive: c.destructive, Idempotent: c.idempotent, OpenWorld: c.openWorld}
		if got := tool(t, c.tool).Hints; got != want {
			t.Errorf("%s: hints %+v, want %+v", c.tool, got, want)
		}
	}
	// The session checklist is written at --tier read: tasks is never
	// read-only, while notes and plan are at that tier.
	for name, readOnly := range map[string]bool{"workspace_tasks": false, "workspace_notes": true, "workspace_plan": true} {
		var rows []*dispatch.Action
		for _, r := range tool(t, name).Rows() {
			if r.Tier == workspace.TierRead {
				rows = append(rows, r)
			}
		}
		if got := schema.Build(rows).Hints.ReadOnly; got != readOnly {
			t.Errorf("%s at --tier read: readOnly %v, want %v", name, got, readOnly)
		}
	}
}

func tool(t *testing.T, name string) *schema.Tool {
	t.Helper()
	for _, tl := range schema.All() {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}
