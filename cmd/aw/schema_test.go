package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/schema"
)

// The schema tests check the generated schemas with a real JSON Schema
// validator (santhosh-tekuri/jsonschema, draft 2020-12).

var schemaN int

func compile(t testing.TB, s any) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	schemaN++
	url := fmt.Sprintf("mem://schema%d.json", schemaN)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, raw)
	}
	return sch
}

func validate(sch *jsonschema.Schema, instance string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// schemaData runs `aw schema` and returns data.
func schemaData(t testing.TB, args ...string) map[string]any {
	t.Helper()
	dir := mcpWorkspace(t, "")
	r := runAW(t, dir, nil, append([]string{"schema", "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("aw schema %v: exit %d: %s", args, r.Code, r.Stdout)
	}
	return r.Env["data"].(map[string]any)
}

func TestSchemaEveryActionHasOne(t *testing.T) {
	data := schemaData(t, "--all")
	byName := map[string]map[string]any{}
	for _, x := range data["tools"].([]any) {
		tool := x.(map[string]any)
		byName[tool["name"].(string)] = tool
	}
	for _, row := range dispatch.Table() {
		// Every row compiles, aw's own nouns included.
		compile(t, schema.Action(row))
		if row.Tool.Name == "" {
			continue
		}
		tool := byName[row.Tool.Name]
		if tool == nil {
			t.Errorf("aw schema --all lacks %s", row.Tool.Name)
			continue
		}
		as, ok := tool["actionSchemas"].(map[string]any)[row.Name]
		if !ok {
			t.Errorf("%s has no schema for %s", row.Tool.Name, row.Name)
			continue
		}
		sch := compile(t, as)
		if err := validate(sch, fmt.Sprintf(`{"action":%q}`, "not-"+row.Name)); err == nil {
			t.Errorf("%s's schema accepts another action", row.Operation())
		}
		union := compile(t, tool["inputSchema"])
		if err := validate(union, fmt.Sprintf(`{"action":%q}`, row.Name)); err != nil {
			t.Errorf("%s: the tool schema refuses the bare action: %v", row.Operation(), err)
		}
	}
	compile(t, data["envelope"])
}

// seedOperations are the tool reference's example operations JSON, verbatim.
var seedOperations = []string{
	`{ "type": "create", "path": "src/new.ts", "content": "...", "overwrite": false }`,
	`{ "type": "rewrite", "path": "src/a.ts", "content": "...", "create_if_missing": false }`,
	`{ "type": "replace", "path": "src/a.ts", "search": "old exact text", "replacement": "new text", "expected_matches": 1 }`,
	`{ "type": "splice", "path": "src/a.ts", "start_line": 20, "delete_count": 3, "content": "replacement lines" }`,
	`{ "type": "copy", "from": "src/a.ts", "to": "src/b.ts", "overwrite": false }`,
	`{ "type": "move", "from": "src/old.ts", "to": "src/new.ts", "overwrite": false }`,
	`{ "type": "delete", "path": "src/old.ts", "ignore_missing": false }`,
	`{ "type": "mkdir", "path": ".github/workflows" }`,
}

// seedStaged is the tool reference's staged edit.apply envelope, with its ids filled in.
const seedStaged = `{
"protocol": "agentic-workspace/v1",
"ok": true,
"operation": "edit.apply",
"summary": "Awaiting approval approval_1: Commit tx_1. The user must reply /accept approval_1 (or /deny approval_1 <reason>). After approval, call workspace_edit with {\"action\":\"commit\",\"transaction_id\":\"tx_1\"}.",
"retention": {
"importance": "critical",
"facts": ["approval approval_1 pending: Commit tx_1", "permission mode Manual (0)"]
},
"data": {
"status": "pending_approval",
"mode": "manual",
"approval": {
"id": "approval_1",
"kind": "transaction",
"title": "Commit tx_1",
"destructive": false,
"resume": { "tool": "workspace_edit", "arguments": { "action": "commit", "transaction_id": "tx_1" } }
}
}
}`

func TestSchemaSeedExamplesValidate(t *testing.T) {
	data := schemaData(t, "--all")
	tools := map[string]map[string]any{}
	for _, x := range data["tools"].([]any) {
		tool := x.(map[string]any)
		tools[tool["name"].(string)] = tool
	}
	edit := tools["workspace_edit"]
	for _, action := range []string{"preview", "apply"} {
		for _, sch := range []*jsonschema.Schema{
			compile(t, edit["inputSchema"]),
			compile(t, edit["actionSchemas"].(map[string]any)[action]),
		} {
			for _, op := range seedOperations {
				req := fmt.Sprintf(`{"action":%q,"operations":[%s]}`, action, op)
				if err := validate(sch, req); err != nil {
					t.Errorf("seed operation %s does not validate for %s: %v", op, action, err)
				}
			}
			all := fmt.Sprintf(`{"action":%q,"operations":[%s],"idempotency_key":"k1"}`, action, strings.Join(seedOperations, ","))
			if err := validate(sch, all); err != nil {
				t.Errorf("all seed operations: %v", err)
			}
		}
	}
	// The resume call of the staged example is a valid call of its tool.
	if err := validate(compile(t, edit["inputSchema"]), `{"action":"commit","transaction_id":"tx_1"}`); err != nil {
		t.Errorf("the seed's resume call: %v", err)
	}
	if err := validate(compile(t, data["envelope"]), seedStaged); err != nil {
		t.Errorf("the reference's staged envelope does not validate: %v", err)
	}
	plan := compile(t, tools["workspace_plan"]["actionSchemas"].(map[string]any)["propose"])
	if err := validate(plan, `{"action":"propose","title":"T","objective":"O","steps":["read",{"text":"edit","kind":"edit"}],
		"files":[{"path":"src/a.ts","change":"modify"}],"commands":[{"executable":"go","args":["test","./..."]}],"risks":["r"],"questions":["q"]}`); err != nil {
		t.Errorf("seed plan propose: %v", err)
	}
	for _, call := range []struct{ tool, json string }{
		{"workspace_inspect", `{"action":"read","path":"README.md","start_line":1,"limit":20}`},
		{"workspace_inspect", `{"action":"search","pattern":"TODO","glob":["*.go"],"fixed":true,"context":2}`},
		{"workspace_inspect", `{"action":"changes"}`},
		{"workspace_notes", `{"action":"write","name":"todo","content":"x","memory":false}`},
		{"workspace_notes", `{"action":"list","limit":10}`},
		{"workspace_plan", `{"action":"complete","plan_id":"plan_1","summary":"done"}`},
	} {
		if err := validate(compile(t, tools[call.tool]["inputSchema"]), call.json); err != nil {
			t.Errorf("%s %s: %v", call.tool, call.json, err)
		}
	}
}

func TestSchemaRejectsWrongTypes(t *testing.T) {
	data := schemaData(t, "--all")
	tools := map[string]map[string]any{}
	for _, x := range data["tools"].([]any) {
		tool := x.(map[string]any)
		tools[tool["name"].(string)] = tool
	}
	for _, bad := range []struct{ tool, action, json string }{
		{"workspace_inspect", "read", `{"action":"read","path":5}`},
		{"workspace_inspect", "read", `{"action":"read"}`},
		{"workspace_inspect", "read", `{"action":"read","path":"a","start_line":"1"}`},
		{"workspace_inspect", "search", `{"action":"search","pattern":"x","glob":"*.go"}`},
		{"workspace_inspect", "read", `{"action":"read","path":"a","bogus":1}`},
		{"workspace_edit", "preview", `{"action":"preview","operations":"create"}`},
		{"workspace_edit", "preview", `{"action":"preview","operations":[{"path":"a"}]}`},
		{"workspace_edit", "preview", `{"action":"preview","operations":[{"type":"create","path":"a","overwrite":"yes"}]}`},
		{"workspace_edit", "commit", `{"action":"commit","transaction_id":7}`},
		{"workspace_notes", "write", `{"action":"write","name":"n","memory":"true"}`},
		{"workspace_plan", "propose", `{"action":"propose","title":"T","objective":"O","steps":[5]}`},
		{"workspace_plan", "propose", `{"action":"propose","title":"T","objective":"O","steps":[{"text":"x","kind":"dance"}]}`},
	} {
		if err := validate(compile(t, tools[bad.tool]["actionSchemas"].(map[string]any)[bad.action]), bad.json); err == nil {
			t.Errorf("%s %s validates, want a rejection", bad.tool, bad.json)
		}
	}
	for _, bad := range []struct{ tool, json string }{
		{"workspace_inspect", `{"path":"a"}`},
		{"workspace_inspect", `{"action":"teleport"}`},
		{"workspace_inspect", `{"action":"read","path":5}`},
		{"workspace_edit", `{"action":"preview","operations":"create"}`},
		{"workspace_edit", `{"action":"preview","nonsense":true}`},
	} {
		if err := validate(compile(t, tools[bad.tool]["inputSchema"]), bad.json); err == nil {
			t.Errorf("%s %s validates against the tool schema, want a rejection", bad.tool, bad.json)
		}
	}
}

// Real envelopes validate against the envelope schema.
func TestSchemaEnvelopesValidate(t *testing.T) {
	data := schemaData(t)
	env := compile(t, data["envelope"])
	dir := mcpWorkspace(t, `{"permissionMode": 0}`)
	for _, args := range [][]string{
		{"inspect", "read", "README.md"},
		{"inspect", "read", "missing.md"},
		{"inspect", "capabilities"},
		{"edit", "apply", "--op", `{"type":"create","path":"n.txt","content":"n\n"}`},
		{"plan", "propose", "--input", "-"},
	} {
		var stdin []byte
		if args[0] == "plan" {
			stdin = []byte(`{"title":"T","objective":"O","steps":["one"]}`)
		}
		r := runAW(t, dir, stdin, append([]string{"-o", "json"}, args...)...)
		if err := validate(env, string(r.Stdout)); err != nil {
			t.Errorf("aw %v: the envelope does not validate: %v\n%s", args, err, r.Stdout)
		}
	}
}

func TestSchemaOpenAIFormat(t *testing.T) {
	data := schemaData(t, "--format", "openai")
	tools := data["tools"].([]any)
	if len(tools) == 0 {
		t.Fatal("no tools")
	}
	for _, x := range tools {
		fn := x.(map[string]any)
		if fn["type"] != "function" {
			t.Errorf("type %v", fn["type"])
		}
		f := fn["function"].(map[string]any)
		name, _ := f["name"].(string)
		if !strings.HasPrefix(name, "workspace_") || f["description"] == "" {
			t.Errorf("function %v", f)
		}
		params := f["parameters"].(map[string]any)
		if params["type"] != "object" {
			t.Errorf("%s parameters are not an object schema", name)
		}
		compile(t, params)
	}
	// One tool, and an unknown one.
	one := schemaData(t, "workspace_inspect", "--format", "openai")
	if n := len(one["tools"].([]any)); n != 1 {
		t.Errorf("aw schema workspace_inspect: %d tools", n)
	}
	dir := mcpWorkspace(t, "")
	if r := runAW(t, dir, nil, "schema", "-o", "json", "workspace_nope"); r.Code != 2 || r.field(t, ".error.code") != "INVALID_INPUT" {
		t.Errorf("unknown tool: exit %d %s", r.Code, r.Stdout)
	}
	if r := runAW(t, dir, nil, "schema", "-o", "json", "--format", "yaml"); r.Code != 2 {
		t.Errorf("--format yaml: exit %d", r.Code)
	}
	// The tier cap narrows the schema like it narrows aw mcp.
	r := runAW(t, dir, nil, "schema", "-o", "json", "--tier", "read", "workspace_edit")
	acts := fmt.Sprint(r.field(t, ".data.tools.0.actions"))
	if strings.Contains(acts, "apply") || !strings.Contains(acts, "preview") {
		t.Errorf("--tier read edit actions %s", acts)
	}
}
