// Package schema generates JSON Schemas (draft 2020-12) for aw's tools and
// its envelope from the Go types the engine itself decodes, so the schemas an
// MCP client or a function-calling harness sees can never drift from what
// aw accepts. Every tool and action comes from dispatch.Table at run time;
// nothing here names a tool. It never prints and never opens files.
//
// The generator reads encoding/json's rules: a field's JSON name, "-", and
// omitempty/omitzero (a field without either is required). Two optional
// struct tags refine it: doc:"..." (a description) and enum:"a,b,c". A type
// that decodes itself (json.Unmarshaler) declares its accepted shape with a
// JSONSchema() map[string]any method; without one it is left open ({}), since
// guessing would reject input the engine accepts.
package schema

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Draft is the JSON Schema dialect of every generated schema.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is a JSON Schema as plain data (it marshals to the schema's JSON).
type Schema = map[string]any

// Provider is implemented by types that decode themselves and so must say
// which JSON they accept.
type Provider interface{ JSONSchema() map[string]any }

var (
	providerType    = reflect.TypeFor[Provider]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
	rawType         = reflect.TypeFor[json.RawMessage]()
)

// For returns the schema of values of type t as encoding/json reads them.
func For(t reflect.Type) Schema { return forType(t, map[reflect.Type]bool{}) }

func forType(t reflect.Type, seen map[reflect.Type]bool) Schema {
	if t == rawType {
		return Schema{}
	}
	if t.Implements(providerType) {
		return reflect.Zero(t).Interface().(Provider).JSONSchema()
	}
	if reflect.PointerTo(t).Implements(providerType) {
		return reflect.New(t).Interface().(Provider).JSONSchema()
	}
	if t == timeType {
		return Schema{"type": "string", "format": "date-time"}
	}
	if t.Kind() != reflect.Pointer && (t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)) {
		return Schema{"description": "any JSON value that " + t.Name() + " accepts (validated by aw)"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return forType(t.Elem(), seen)
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Schema{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Schema{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return Schema{"type": "string", "contentEncoding": "base64"}
		}
		return Schema{"type": "array", "items": forType(t.Elem(), seen)}
	case reflect.Map:
		return Schema{"type": "object", "additionalProperties": forType(t.Elem(), seen)}
	case reflect.Interface:
		return Schema{}
	case reflect.Struct:
		if seen[t] {
			return Schema{"type": "object"} // a recursive type: its inner levels stay open
		}
		seen[t] = true
		defer delete(seen, t)
		props := Schema{}
		var order, required []string
		structFields(t, seen, props, &order, &required)
		s := Schema{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return Schema{}
}

// structFields adds t's JSON fields (embedded structs flattened, as
// encoding/json does) to props.
func structFields(t reflect.Type, seen map[reflect.Type]bool, props Schema, order, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				structFields(et, seen, props, order, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := forType(f.Type, seen)
		if doc := f.Tag.Get("doc"); doc != "" {
			s = clone(s)
			s["description"] = doc
		}
		if enum := f.Tag.Get("enum"); enum != "" {
			s = clone(s)
			var vals []any
			for _, v := range strings.Split(enum, ",") {
				vals = append(vals, v)
			}
			s["enum"] = vals
		}
		props[name] = s
		*order = append(*order, name)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

func clone(s Schema) Schema {
	out := make(Schema, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	return out
}

// Action is the input schema of one action: its request type's schema plus
// the "action" key every tool call carries.
func Action(a *dispatch.Action) Schema {
	s := clone(For(a.RequestType()))
	props := clone(asSchema(s["properties"]))
	props["action"] = Schema{"const": a.Name, "description": a.Short}
	s["properties"] = props
	req, _ := s["required"].([]string)
	s["required"] = append([]string{"action"}, req...)
	s["type"] = "object"
	s["additionalProperties"] = false
	return s
}

func asSchema(v any) Schema {
	if s, ok := v.(Schema); ok {
		return s
	}
	return Schema{}
}

// Tool describes one tool as a front end registers it.
type Tool struct {
	Name        string   `json:"name"`
	Noun        string   `json:"noun"`
	Description string   `json:"description"`
	Actions     []string `json:"actions"`
	// InputSchema is the tool's arguments: an "action" enum and the union of
	// the actions' arguments.
	InputSchema Schema `json:"inputSchema"`
	// ActionSchemas is each action's own schema (with its required fields).
	ActionSchemas map[string]Schema `json:"actionSchemas"`
	Hints         Hints             `json:"hints"`

	rows []*dispatch.Action
}

// Rows are the dispatch rows behind the tool's actions.
func (t *Tool) Rows() []*dispatch.Action { return t.rows }

// Row returns the row of one of the tool's actions, or nil.
func (t *Tool) Row(action string) *dispatch.Action {
	for _, r := range t.rows {
		if r.Name == action {
			return r
		}
	}
	return nil
}

// Hints are what a client may assume about a tool (MCP tool annotations).
type Hints struct {
	// ReadOnly: every offered action is of the read tier and never gated.
	ReadOnly bool `json:"readOnly"`
	// Destructive: the tool can delete or overwrite (edit, vcs, command).
	Destructive bool `json:"destructive"`
	// Idempotent: repeating a call has no further effect (reads only).
	Idempotent bool `json:"idempotent"`
	// OpenWorld: the tool reaches outside the workspace (web, browser, sub-agents).
	OpenWorld bool `json:"openWorld"`
}

// The tools whose actions can destroy content, and those that reach
// outside the machine: hints, keyed by tool noun.
var (
	destructiveNouns = map[string]bool{"edit": true, "vcs": true, "command": true}
	openWorldNouns   = map[string]bool{"research": true, "browser": true, "agent": true}
	idempotentNouns  = map[string]bool{"inspect": true}
)

// Registered returns the workspace_* tools ws offers (dispatch.Registered:
// the feature settings, plan only outside Auto, and the tier), each with the
// actions the tier allows, in table order.
func Registered(ws *workspace.Workspace) []*Tool {
	var out []*Tool
	for _, info := range dispatch.Registered(ws) {
		var rows []*dispatch.Action
		for _, name := range info.Actions {
			if row, err := dispatch.Find(info.Name, name); err == nil {
				rows = append(rows, row)
			}
		}
		if len(rows) > 0 {
			out = append(out, Build(rows))
		}
	}
	return out
}

// All returns every workspace_* tool in the table with every action, whatever
// the settings and tier.
func All() []*Tool {
	var order []*dispatch.Tool
	rows := map[*dispatch.Tool][]*dispatch.Action{}
	for _, a := range dispatch.Table() {
		if a.Tool.Name == "" {
			continue
		}
		if _, ok := rows[a.Tool]; !ok {
			order = append(order, a.Tool)
		}
		rows[a.Tool] = append(rows[a.Tool], a)
	}
	var out []*Tool
	for _, t := range order {
		out = append(out, Build(rows[t]))
	}
	return out
}

var built sync.Map // "tool action action ..." -> *Tool

// Build describes the tool of rows (all of one tool) offering those actions.
// The rows are fixed for the life of the process, so each set is built once.
func Build(rows []*dispatch.Action) *Tool {
	key := rows[0].Tool.Name
	for _, r := range rows {
		key += " " + r.Name
	}
	if t, ok := built.Load(key); ok {
		return t.(*Tool)
	}
	t := build(rows)
	built.Store(key, t)
	return t
}

func build(rows []*dispatch.Action) *Tool {
	tool := rows[0].Tool
	t := &Tool{Name: tool.Name, Noun: tool.Noun, ActionSchemas: map[string]Schema{}, rows: rows}
	props := Schema{}
	users := map[string][]string{}
	variants := map[string][]Schema{}
	var names []any
	readOnly := true
	for _, r := range rows {
		t.Actions = append(t.Actions, r.Name)
		names = append(names, r.Name)
		as := Action(r)
		t.ActionSchemas[r.Name] = as
		for name, ps := range asSchema(as["properties"]) {
			if name == "action" {
				continue
			}
			users[name] = append(users[name], r.Name)
			p := ps.(Schema)
			dup := false
			for _, v := range variants[name] {
				if sameJSON(v, p) {
					dup = true
				}
			}
			if !dup {
				variants[name] = append(variants[name], p)
			}
		}
		if r.Tier != workspace.TierRead || r.Gate != "" {
			readOnly = false
		}
	}
	for name, vs := range variants {
		var p Schema
		if len(vs) == 1 {
			p = clone(vs[0])
		} else {
			var any []any
			for _, v := range vs {
				any = append(any, v)
			}
			p = Schema{"anyOf": any}
		}
		used := "Used by " + strings.Join(users[name], ", ") + "."
		if d, ok := p["description"].(string); ok && d != "" {
			used = d + " " + used
		}
		p["description"] = used
		props[name] = p
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, r.Name+": "+r.Short)
	}
	props["action"] = Schema{"type": "string", "enum": names, "description": "The action to run. " + strings.Join(lines, "; ") + "."}
	t.InputSchema = Schema{
		"type":                 "object",
		"properties":           props,
		"required":             []string{"action"},
		"additionalProperties": false,
	}
	t.Description = tool.Short + `. Pass "action" (` + strings.Join(t.Actions, ", ") + `) and that action's arguments; every call returns an agentic-workspace/v1 envelope (summary, retention facts, data, error).`
	t.Hints = Hints{
		ReadOnly:    readOnly,
		Destructive: destructiveNouns[tool.Noun],
		Idempotent:  readOnly && idempotentNouns[tool.Noun],
		OpenWorld:   openWorldNouns[tool.Noun],
	}
	return t
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Envelope is the schema of the agentic-workspace/v1 envelope, generated
// from envelope.Envelope. It stays open to added keys (forward compatible).
func Envelope() Schema {
	s := clone(For(reflect.TypeFor[envelope.Envelope]()))
	delete(s, "additionalProperties")
	props := clone(asSchema(s["properties"]))
	props["protocol"] = Schema{"const": envelope.Protocol}
	ret := clone(asSchema(props["retention"]))
	rp := clone(asSchema(ret["properties"]))
	rp["importance"] = Schema{"type": "string", "enum": []any{envelope.Low, envelope.Normal, envelope.High, envelope.Critical}}
	ret["properties"] = rp
	props["retention"] = ret
	s["properties"] = props
	s["$schema"] = Draft
	s["title"] = envelope.Protocol + " envelope"
	return s
}

// Document wraps a schema as a standalone document ($schema, title).
func Document(title string, s Schema) Schema {
	out := clone(s)
	out["$schema"] = Draft
	out["title"] = title
	return out
}

// OpenAI is the tool as an OpenAI function-calling definition
// ({"type":"function","function":{name, description, parameters}}).
func OpenAI(t *Tool) map[string]any {
	return map[string]any{
		"type": "function",
		"function": map[string]any{
			"name":        t.Name,
			"description": t.Description,
			"parameters":  t.InputSchema,
		},
	}
}

// Names returns the tools' names, sorted.
func Names(tools []*Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}
