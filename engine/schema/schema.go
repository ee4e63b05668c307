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
//
// A tool's input schema is the union of its actions' arguments, and is kept
// flat on purpose: an "action" enum plus one property per argument, with no
// oneOf, anyOf, allOf or if/then at the top level. Anthropic's API refuses
// a tool whose input_schema has oneOf, allOf or anyOf at the top level (so
// Claude Code and other clients that pass MCP schemas through fail every
// request once such a tool is listed), OpenAI's strict function calling and
// Gemini's declarations take a subset without conditionals, and the MCP
// Inspector builds its form from the top-level properties. So the
// per-action required arguments are written where a model reads them: the
// "action" property's description lists them per action ("read: path;
// search: pattern"), and the tool description's line for each action names
// them in parentheses. The exact per-action schemas, each with its own
// required list, are Tool.ActionSchemas (`aw schema`), and the engine
// checks every call whatever the client validated.
//
// Merging: where actions share an argument, its description is given once
// when every action means the same, with the actions named, "(read,
// search)", when only some take it, and per action, "read: ... list: ...",
// when they mean different things; differing types become an anyOf of the
// property (never of the whole schema). "Used by ..." is only the fallback
// for an argument nobody documented, which the tests refuse.
//
// The tool annotations (Hints) follow from the effects each dispatch row
// declares (dispatch.Effect), never from tool names: readOnlyHint only when
// no offered action writes anything (aw's records count: notes, boards, the
// session checklist, plans, planned transactions), destructiveHint when one
// can overwrite or delete, idempotentHint when every write can be repeated
// without further effect, openWorldHint when one can reach the network. The
// hints depend on the offered actions, so a tool capped at --tier read
// can be read-only while the same tool uncapped is not.
package schema

import (
	"encoding/json"
	"reflect"
	"slices"
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

// Hints are what a client may assume about a tool (MCP tool annotations),
// derived from the declared effects of the actions offered (dispatch.Effect):
// a tool is as strong as its strongest action.
type Hints struct {
	// ReadOnly: no offered action writes anything (files, processes or
	// aw's records).
	ReadOnly bool `json:"readOnly"`
	// Destructive: some offered action can overwrite or delete.
	Destructive bool `json:"destructive"`
	// Idempotent: repeating any offered call with the same arguments has no
	// further effect.
	Idempotent bool `json:"idempotent"`
	// OpenWorld: some offered action can reach outside the machine.
	OpenWorld bool `json:"openWorld"`
}

// hints derives a tool's hints from its rows' effects.
func hints(rows []*dispatch.Action) Hints {
	h := Hints{ReadOnly: true, Idempotent: true}
	for _, r := range rows {
		e := r.Effect
		if e&dispatch.Writes != 0 {
			h.ReadOnly = false
			h.Idempotent = h.Idempotent && e&dispatch.Idempotent != 0
			h.Destructive = h.Destructive || e&dispatch.Destroys != 0
		}
		h.OpenWorld = h.OpenWorld || e&dispatch.Network != 0
	}
	return h
}

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
	uses := map[string][]use{}
	var names []any
	var needs, lines []string
	for _, r := range rows {
		t.Actions = append(t.Actions, r.Name)
		names = append(names, r.Name)
		as := Action(r)
		t.ActionSchemas[r.Name] = as
		for name, ps := range asSchema(as["properties"]) {
			if name != "action" {
				uses[name] = append(uses[name], use{r.Name, ps.(Schema)})
			}
		}
		line := "- " + r.Name
		if req, _ := as["required"].([]string); len(req) > 1 {
			needs = append(needs, r.Name+": "+strings.Join(req[1:], ", "))
			line += " (" + strings.Join(req[1:], ", ") + ")"
		}
		lines = append(lines, line+": "+r.Short)
	}
	props := Schema{}
	for name, us := range uses {
		props[name] = merge(us, len(rows))
	}
	action := "The action to run (each is described in the tool description)."
	if len(needs) > 0 {
		action += " Required arguments: " + strings.Join(needs, "; ") + "; the other actions need none."
	}
	props["action"] = Schema{"type": "string", "enum": names, "description": action}
	t.InputSchema = Schema{
		"type":                 "object",
		"properties":           props,
		"required":             []string{"action"},
		"additionalProperties": false,
	}
	desc := tool.Short + "."
	if tool.Use != "" {
		desc += " " + tool.Use
	}
	t.Description = desc + "\nActions (required arguments in parentheses):\n" + strings.Join(lines, "\n") +
		"\nPass \"action\" and that action's arguments; every call returns an agentic-workspace/v1 envelope (ok, summary, retention facts, data, error)."
	t.Hints = hints(rows)
	return t
}

// use is one action's schema of a property.
type use struct {
	action string
	s      Schema
}

// merge makes the tool-level schema of one property from each action's:
// one shape (anyOf when the actions' types differ) and one description
// that says which action means what. A description every action shares is
// given once; one that only some actions share names them, "(read,
// search)"; differing ones are given per action, "read: ... list: ...".
func merge(us []use, actions int) Schema {
	var shapes []Schema
	type group struct {
		doc     string
		actions []string
	}
	var groups []*group
	for _, u := range us {
		shape := clone(u.s)
		doc, _ := shape["description"].(string)
		delete(shape, "description")
		if !slices.ContainsFunc(shapes, func(s Schema) bool { return sameJSON(s, shape) }) {
			shapes = append(shapes, shape)
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return g.doc == doc })
		if i < 0 {
			groups = append(groups, &group{doc: doc})
			i = len(groups) - 1
		}
		groups[i].actions = append(groups[i].actions, u.action)
	}
	p := shapes[0]
	if len(shapes) > 1 {
		var alts []any
		for _, s := range shapes {
			alts = append(alts, s)
		}
		p = Schema{"anyOf": alts}
	}
	var doc string
	switch g := groups[0]; {
	case len(groups) == 1 && g.doc == "":
		doc = "Used by " + strings.Join(g.actions, ", ") + "."
	case len(groups) == 1 && len(g.actions) == actions:
		doc = g.doc
	case len(groups) == 1:
		doc = g.doc + " (" + strings.Join(g.actions, ", ") + ")"
	default:
		var parts []string
		for _, g := range groups {
			d := strings.TrimSuffix(g.doc, ".")
			if d == "" {
				d = "(no description)"
			}
			parts = append(parts, strings.Join(g.actions, ", ")+": "+d+".")
		}
		doc = strings.Join(parts, " ")
	}
	p["description"] = doc
	return p
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
