// Package dispatch is the one table of aw's actions: (tool, action) →
// (request type, engine function, tier, gate class). The cobra commands,
// `aw call` and `aw mcp` are front ends over it, so policy checks that apply
// to every action (tool enabled, tier cap) live here and nowhere else.
// Adding an action means adding one row to Table (with Does declaring what
// it can change, from which the MCP annotations follow) and one engine
// function.
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/agentic-workspace/aw/engine/edit"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gc"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Func is the shape of every engine action.
type Func[R any] func(ctx context.Context, ws *workspace.Workspace, req *R) (envelope.Envelope, error)

// Action is one row of the table.
type Action struct {
	Tool  *Tool
	Name  string         // action name in tool calls, snake_case ("semantic_search")
	Tier  workspace.Tier // the least tier that may call it
	Gate  string         // gate class: "" never gated; transaction, command, vcs, web, browser, agent
	Human bool           // only a human may call it: the engine checks the caller
	// AwaitsRun: the call can wait on a sub-agent's run, which may ask the
	// human a question meanwhile (aw mcp then offers it through the client).
	AwaitsRun bool
	Short     string // one line for help text and schemas
	// Effect is what the action can do besides reading (declared with
	// Does); the MCP tool annotations are derived from it.
	Effect Effect

	newReq func() any
	run    func(ctx context.Context, ws *workspace.Workspace, req any) (envelope.Envelope, error)
	// after runs once the action succeeded, to add to its envelope
	// (the diagnostics a write introduced); it never fails the call.
	after func(ctx context.Context, ws *workspace.Workspace, env *envelope.Envelope)
}

// Then declares a step that adds to the envelope of a successful call.
func (a *Action) Then(f func(ctx context.Context, ws *workspace.Workspace, env *envelope.Envelope)) *Action {
	a.after = f
	return a
}

// Effect is what an action can do besides reading, declared on its row so
// that what a client is told (MCP readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint) follows from the table, not from a list of
// tool names. An action declares what it can do in the worst case its
// arguments allow ("may"), not what one call usually does.
type Effect uint8

const (
	// Writes: it changes something a later call sees: workspace files, the
	// repository, processes, or aw's own records (notes, boards, the
	// session checklist, plans, transactions, research projects, approvals).
	// Output spilled to an artifact is part of the answer, not a write.
	Writes Effect = 1 << iota
	// Destroys: it can overwrite or delete what exists, end a process or
	// act on a remote site. Only with Writes.
	Destroys
	// Idempotent: repeating it with the same arguments changes nothing
	// more. Only with Writes: an action that writes nothing is idempotent.
	Idempotent
	// Network: it can reach outside the machine (the web, GitHub, a
	// browser page, a process that may connect out).
	Network
)

// Awaits marks a call that can wait on a run and returns the row.
func (a *Action) Awaits() *Action {
	a.AwaitsRun = true
	return a
}

// Does declares the action's effects and returns the row.
func (a *Action) Does(e Effect) *Action {
	a.Effect = e
	return a
}

// Tool groups actions under one tool name.
type Tool struct {
	Name  string // MCP name, "workspace_inspect"; "" for aw's own nouns (config)
	Noun  string // command-line noun and operation prefix, "inspect"
	Short string
	// Use tells a model when to use the tool (a few sentences); the tool
	// description is Short, Use and one line per action.
	Use string
	// Enabled reports whether settings register the tool, and if not, the
	// setting and value that turn it on ("tasks.enabled true").
	Enabled func(s *workspace.Settings) (bool, string)
}

// Operation is the envelope's operation name, "<noun>.<action>".
func (a *Action) Operation() string { return a.Tool.Noun + "." + a.Name }

// Verb is the command-line spelling of the action ("semantic-search").
func (a *Action) Verb() string { return strings.ReplaceAll(a.Name, "_", "-") }

// NewRequest returns a pointer to a zero request of the action's type.
func (a *Action) NewRequest() any { return a.newReq() }

// RequestType is the action's request struct type (for schemas).
func (a *Action) RequestType() reflect.Type { return reflect.TypeOf(a.newReq()).Elem() }

// Bind makes a row from an engine function.
func Bind[R any](tool *Tool, name string, tier workspace.Tier, gate string, short string, fn Func[R]) *Action {
	return &Action{
		Tool: tool, Name: name, Tier: tier, Gate: gate, Short: short,
		newReq: func() any { return new(R) },
		run: func(ctx context.Context, ws *workspace.Workspace, req any) (envelope.Envelope, error) {
			return fn(ctx, ws, req.(*R))
		},
	}
}

// Find returns the action by tool name (workspace_* or noun) and action name
// (snake_case or the command-line spelling).
func Find(tool, action string) (*Action, error) {
	action = strings.ReplaceAll(action, "-", "_")
	var known []string
	for _, a := range Table() {
		if a.Tool.Name == tool || a.Tool.Noun == tool {
			if a.Name == action {
				return a, nil
			}
			known = append(known, a.Name)
		}
	}
	if len(known) == 0 {
		return nil, envelope.Errorf(envelope.InvalidInput, "unknown tool %q: the tools are %s", tool, strings.Join(ToolNames(), ", ")).With("tool", tool)
	}
	return nil, envelope.Errorf(envelope.InvalidInput, "tool %s has no action %q: its actions are %s", tool, action, strings.Join(known, ", ")).With("action", action)
}

// ToolNames lists the distinct workspace_* tool names.
func ToolNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range Table() {
		if a.Tool.Name != "" && !seen[a.Tool.Name] {
			seen[a.Tool.Name] = true
			out = append(out, a.Tool.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Run checks what every action shares (tool enabled, tier cap) and runs it.
// It always returns an envelope: errors become failed envelopes.
// Its messages speak the caller's vocabulary (WithVocabulary).
func (a *Action) Run(ctx context.Context, ws *workspace.Workspace, req any) envelope.Envelope {
	env := a.checked(ctx, ws, req)
	env.Warn(ws.Warnings)
	a.speak(&env, vocabularyOf(ctx))
	return env
}

// checked runs the action once its tool, tier and recovery allow it.
func (a *Action) checked(ctx context.Context, ws *workspace.Workspace, req any) envelope.Envelope {
	if a.Tool.Enabled != nil {
		if ok, enable := a.Tool.Enabled(&ws.Settings); !ok {
			key, _, _ := strings.Cut(enable, " ")
			return envelope.Fail(a.Operation(), envelope.Errorf(envelope.ToolDisabled,
				"%s is disabled by settings: a human can enable it with `aw config set %s`", a.Tool.Noun, enable).With("setting", key))
		}
	}
	if !ws.Allows(a.Tier) {
		return envelope.Fail(a.Operation(), a.tierRefusal(ws.Tier))
	}
	// A commit or rollback killed half-way is finished before anything
	// else reads the workspace.
	if err := edit.Recover(ws); err != nil {
		return envelope.Fail(a.Operation(), err)
	}
	// Light pruning of .agentic/ (at most hourly, bounded, never at --tier
	// read). A human verb is the human's call and does not pay for it.
	if !a.Human {
		gc.Auto(ws)
	}
	if ws.Tools == nil {
		ws.Tools = func() []workspace.ToolInfo { return Registered(ws) }
	}
	if err := expandIDs(ws, req); err != nil {
		return envelope.Fail(a.Operation(), err)
	}
	env, err := a.run(ctx, ws, req)
	if err != nil {
		return envelope.Fail(a.Operation(), err)
	}
	if a.after != nil && env.OK {
		a.after(ctx, ws, &env)
	}
	env.Operation = a.Operation()
	return env
}

// tierRefusal says which tier the action needs, what the cap allows of the
// same noun, and how to run it.
func (a *Action) tierRefusal(cap workspace.Tier) error {
	var within []string
	for _, b := range Table() {
		if b.Tool == a.Tool && b.Tier <= cap {
			within = append(within, b.Verb())
		}
	}
	what := "it changes workspace files or aw's records"
	if a.Tier == workspace.TierExec {
		what = "it starts processes or reaches the network"
	}
	also := ""
	if len(within) > 0 {
		also = fmt.Sprintf("; at --tier %s, %s offers %s", cap, a.Tool.Noun, strings.Join(within, ", "))
	}
	return envelope.Errorf(envelope.ToolDisabled,
		"%s needs tier %s (%s) but this call is capped at --tier %s: run it without that cap, or with --tier %s%s", a.Operation(), a.Tier, what, cap, a.Tier, also).With("tier", a.Tier.String())
}

// Decode reads a JSON request object (a tool call's arguments) into a
// fresh request. The "action" key is ignored; any other unknown key is
// INVALID_INPUT naming it.
func (a *Action) Decode(raw []byte) (any, error) {
	req := a.NewRequest()
	if err := DecodeInto(raw, req); err != nil {
		return nil, err
	}
	return req, nil
}

// DecodeInto strictly decodes raw JSON into req, ignoring an "action" key.
func DecodeInto(raw []byte, req any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return envelope.Errorf(envelope.InvalidInput, "the request is not a JSON object: %v; pass an object such as {\"path\":\"README.md\"}", err)
	}
	delete(obj, "action")
	clean, _ := json.Marshal(obj)
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return envelope.Errorf(envelope.InvalidInput, "unknown request field %s; the fields are %s", f, strings.Join(fieldNames(req), ", ")).With("field", strings.Trim(f, `"`))
		}
		return envelope.Errorf(envelope.InvalidInput, "the request does not match the action's arguments: %s", strings.TrimPrefix(msg, "json: "))
	}
	return nil
}

func fieldNames(req any) []string {
	t := reflect.TypeOf(req).Elem()
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]; n != "" && n != "-" {
			out = append(out, n)
		}
	}
	return out
}

// String describes an action for debugging.
func (a *Action) String() string { return fmt.Sprintf("%s.%s", a.Tool.Noun, a.Name) }

// DecodeLoose reads only the fields v declares, ignoring the rest.
func DecodeLoose(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return envelope.Errorf(envelope.InvalidInput, "the request is not a JSON object: %v; pass an object such as {\"action\":\"read\",\"path\":\"README.md\"}", err)
	}
	return nil
}
