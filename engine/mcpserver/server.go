// Package mcpserver is aw's Model Context Protocol front end: a server built
// on the official Go SDK that offers the workspace_* tools, each with an
// "action" enum and a schema generated from the request types
// (engine/schema), and answers every call with the envelope. It is a thin
// front end over dispatch, like the cobra commands and `aw call`: every tool
// and action comes from dispatch.Table at run time, the workspace is
// re-opened for every call so settings changes apply at once (decoded
// settings are kept while stat says their files are unchanged), and
// nothing here decides policy. It never prints; the SDK owns the transport.
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/schema"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/output/visible"
)

// StatusTool is the one tool offered when the workspace cannot be opened
// instead of the workspace_* tools: calling it says why.
const StatusTool = "agentic_workspace_status"

// Options configure a server.
type Options struct {
	// Workspace is how every call opens the workspace (root, scope, tier).
	// The caller is never a human: approvals are not decided through tools.
	Workspace workspace.Options
	Version   string
	// Poll is how often the settings files are checked for changes
	// (default 500ms; negative disables the watch).
	Poll   time.Duration
	Logger *slog.Logger
}

// Server is one aw MCP server.
type Server struct {
	opts Options
	mcp  *mcp.Server

	mu      sync.Mutex
	defs    map[string][]byte // registered tool name -> its definition, to detect changes
	stamp   string            // settings files' mtimes at the last sync
	pending map[string]pendingApproval
	// offered are the questions already shown to the human; closeChannel
	// removes the question channel record (see questions.go).
	offered      map[string]bool
	closeChannel func()

	warm warm // the goroutines tool calls run on
	// handlers are the registered tools' handlers, for the calls the stdio
	// transport answers itself (see direct.go); stored once the SDK has
	// the same tools.
	handlers atomic.Pointer[map[string]mcp.ToolHandler]
}

// pendingApproval is a staged approval the server offered to the human by
// elicitation; only an answer to a request the server made is accepted.
type pendingApproval struct {
	approvalID string
	staged     envelope.Envelope
	created    time.Time
}

// New builds the server and registers the tools the workspace offers now.
func New(opts Options) *Server {
	if opts.Poll == 0 {
		opts.Poll = 500 * time.Millisecond
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Workspace.Cache == nil {
		opts.Workspace.Cache = &workspace.Cache{}
	}
	s := &Server{opts: opts, defs: map[string][]byte{}, pending: map[string]pendingApproval{}, offered: map[string]bool{}, warm: warm{jobs: make(chan func())}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "aw", Title: "aw — the agentic workspace", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "aw gives you a bounded, recoverable workspace. Every tool takes an \"action\" and returns an agentic-workspace/v1 envelope (summary, retention facts, data, error). " +
			"After losing context, call workspace_inspect with {\"action\":\"changes\"} and {\"action\":\"capabilities\"} to recover transactions, jobs, plans and pending approvals.",
		Logger: opts.Logger,
		// Tools come and go with settings: always advertise the capability.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.mcp.AddReceivingMiddleware(s.refresh)
	s.Sync()
	return s
}

// MCP returns the SDK server (for in-process transports in tests).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves on t until the client disconnects (stdin closes) or ctx ends,
// watching the settings files meanwhile.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, isStdio := t.(*stdio)
	if isStdio {
		// The sessions' handlers see the store through their contexts.
		ctx = context.WithValue(ctx, precodedKey{}, st.pre)
	}
	if s.opts.Poll > 0 {
		go s.watch(ctx)
	}
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closeChannel != nil {
			s.closeChannel()
		}
	}()
	var err error
	if isStdio {
		err = s.runDirect(ctx, st)
	} else {
		err = s.mcp.Run(ctx, t)
	}
	if err != nil && ctx.Err() == nil && isClosed(err) {
		return nil
	}
	return err
}

// runDirect is the SDK's Server.Run on the stdio transport, keeping the
// session so that the transport can answer tool calls itself.
// Its log lines are the SDK's.
func (s *Server) runDirect(ctx context.Context, st *stdio) error {
	log := s.opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log.Info("server run start")
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		log.Error("server connect failed", "error", err)
		return err
	}
	st.direct.start(ctx, ss, s)
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		log.Error("server run cancelled", "error", ctx.Err())
		return ctx.Err()
	case err := <-ended:
		if err != nil {
			log.Error("server session ended with error", "error", err)
		} else {
			log.Info("server session ended")
		}
		return err
	}
}

func isClosed(err error) bool {
	return strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")
}

// refresh re-reads the registration before a client lists or calls tools,
// so a settings change is visible even between two polls.
func (s *Server) refresh(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			s.Sync()
		}
		return next(ctx, method, req)
	}
}

// watch polls the settings files' modification times and re-registers when
// they change; the SDK tells every client the tool list changed.
func (s *Server) watch(ctx context.Context) {
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.mu.Lock()
			changed := s.stamp != s.settingsStamp()
			s.mu.Unlock()
			if changed {
				s.Sync()
			}
			s.expire()
		}
	}
}

// settingsStamp identifies the settings files' current versions.
func (s *Server) settingsStamp() string {
	var b strings.Builder
	for _, f := range s.settingsFiles() {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s %d %d;", f, fi.ModTime().UnixNano(), fi.Size())
		} else {
			fmt.Fprintf(&b, "%s -;", f)
		}
	}
	return b.String()
}

func (s *Server) settingsFiles() []string {
	o := s.opts.Workspace
	var files []string
	if o.ConfigHome != "" {
		files = append(files, filepath.Join(o.ConfigHome, "aw", "config.json"))
	}
	loc, err := workspace.Locate(o)
	if err != nil {
		return files
	}
	return append(files, filepath.Join(loc.Root, workspace.StateDir, "config.json"))
}

// open opens the workspace as every call does.
func (s *Server) open() (*workspace.Workspace, error) {
	o := s.opts.Workspace
	o.Caller = workspace.Caller{}
	return workspace.Open(o)
}

// Sync makes the registered tools match what the workspace offers now: the
// settings and tier via schema.Registered, or the one status tool when the
// workspace cannot be opened. Only real changes reach the client.
func (s *Server) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stamp = s.settingsStamp()
	want := map[string]*mcp.Tool{}
	handlers := map[string]mcp.ToolHandler{}
	// The transport's own calls run on a kept goroutine already.
	direct := map[string]mcp.ToolHandler{}
	ws, err := s.open()
	if err != nil {
		want[StatusTool] = statusTool(err)
		handlers[StatusTool] = s.callStatus
		direct[StatusTool] = s.callStatus
	} else {
		for _, t := range schema.Registered(ws) {
			want[t.Name] = mcpTool(t)
			handlers[t.Name] = s.callWarm
			direct[t.Name] = s.callTool
		}
	}
	defer s.handlers.Store(&direct)
	var gone []string
	for name := range s.defs {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(s.defs, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	for name, t := range want {
		def, _ := json.Marshal(t)
		if bytes.Equal(s.defs[name], def) {
			continue
		}
		s.defs[name] = def
		s.mcp.AddTool(t, handlers[name])
	}
}

// Tools lists the registered tool names (for tests and diagnostics).
func (s *Server) Tools() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.defs {
		out = append(out, n)
	}
	return out
}

func mcpTool(t *schema.Tool) *mcp.Tool {
	destructive := t.Hints.Destructive
	openWorld := t.Hints.OpenWorld
	return &mcp.Tool{
		Name:         t.Name,
		Title:        t.Name,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: outputSchema(),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.Hints.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Hints.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
}

// outputSchema is the envelope's schema without the dialect keys, which
// some clients' validators do not know.
var outputSchema = sync.OnceValue(func() schema.Schema {
	s := schema.Envelope()
	delete(s, "$schema")
	delete(s, "title")
	return s
})

func statusTool(err error) *mcp.Tool {
	no := false
	return &mcp.Tool{
		Name:        StatusTool,
		Description: "The workspace could not be opened, so no workspace tools are registered. Call this tool to see why: " + envelope.Clip(err.Error(), 500),
		InputSchema: schema.Schema{"type": "object", "properties": schema.Schema{}, "additionalProperties": false},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}
}

// callStatus reports why the workspace cannot be opened (or that it now can).
func (s *Server) callStatus(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	_, err := s.open()
	if err == nil {
		s.Sync()
		env := envelope.New("status.check", "The workspace opens now: the workspace_* tools are registered again; list the tools to see them.", nil)
		return result(ctx, env), nil
	}
	env := envelope.Fail("status.check", err)
	env.Summary = "The workspace cannot be opened, so aw offers no workspace tools: " + env.Error.Message + " A human must fix this (the tool list changes once it is fixed)."
	return result(ctx, env), nil
}

// callTool runs one action of a workspace_* tool: decode the arguments into
// the action's request type, run the dispatch row, return the envelope.
// callWarm is callTool on one of the goroutines earlier calls ran on.
func (s *Server) callWarm(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	s.warm.run(func() { res, err = s.callTool(ctx, req) })
	return res, err
}

func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params
	if p.RequestState != "" || len(p.InputResponses) > 0 {
		return s.answered(ctx, req), nil
	}
	tool := p.Name
	raw := []byte(p.Arguments)
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	var head struct {
		Action any `json:"action"`
	}
	if err := dispatch.DecodeLoose(raw, &head); err != nil {
		return result(ctx, envelope.Fail(noun(tool), err)), nil
	}
	action, _ := head.Action.(string)
	ws, err := s.open()
	if err != nil {
		s.Sync()
		return result(ctx, envelope.Fail(noun(tool), err)), nil
	}
	// The row, when the tool offers it now (what the tool list registers:
	// its tool enabled by the settings, its tier within the cap).
	row, err := dispatch.Find(tool, action)
	if action == "" || err != nil || row.Tool.Name != tool || !offers(ws, row) {
		return result(ctx, envelope.Fail(noun(tool)+"."+action, notOffered(ws, tool, action, offeredTool(ws, tool)))), nil
	}
	r, err := row.Decode(raw)
	if err != nil {
		return result(ctx, envelope.Fail(row.Operation(), err)), nil
	}
	if asksDuringCalls(req) {
		s.openChannel(ws)
		if row.AwaitsRun {
			defer s.offerQuestions(ctx, req.Session, ws)()
		}
	}
	// The model wrote JSON: messages name its arguments, not flags.
	env := row.Run(dispatch.WithVocabulary(ctx, dispatch.Arguments), ws, r)
	if env.Pending() && ws.Settings.MCP.ElicitApprovals && canElicit(req) {
		if res := s.offer(env); res != nil {
			return res, nil
		}
	}
	return result(ctx, env), nil
}

func noun(tool string) string { return strings.TrimPrefix(tool, "workspace_") }

// offers reports whether the registered tools include row, as
// dispatch.Registered decides, without listing them all.
func offers(ws *workspace.Workspace, row *dispatch.Action) bool {
	if row.Tool.Enabled != nil {
		if ok, _ := row.Tool.Enabled(&ws.Settings); !ok {
			return false
		}
	}
	return ws.Allows(row.Tier)
}

// offeredTool is the registered tool named name with its actions, or nil.
func offeredTool(ws *workspace.Workspace, name string) *workspace.ToolInfo {
	for _, t := range dispatch.Registered(ws) {
		if t.Name == name {
			return &t
		}
	}
	return nil
}

// notOffered explains a call outside the registered set: no action, an
// unknown action, or one the settings or tier took away since the list.
func notOffered(ws *workspace.Workspace, tool, action string, offered *workspace.ToolInfo) error {
	if offered == nil {
		return envelope.Errorf(envelope.ToolDisabled, "%s is not offered now (settings or the --tier cap changed since the tool list); list the tools again", tool).With("tool", tool)
	}
	if action == "" {
		return envelope.Errorf(envelope.InvalidInput, `the arguments have no "action": pass {"action":"...", ...} with one of %s`, strings.Join(offered.Actions, ", "))
	}
	if row, err := dispatch.Find(tool, action); err == nil && row.Tool.Name == tool {
		return envelope.Errorf(envelope.ToolDisabled, "%s %s needs tier %s but this server is capped at --tier %s; the actions offered are %s", tool, action, row.Tier, ws.Tier, strings.Join(offered.Actions, ", ")).With("action", action)
	}
	return envelope.Errorf(envelope.InvalidInput, "%s has no action %q: its actions are %s", tool, action, strings.Join(offered.Actions, ", ")).With("action", action)
}

// result is the envelope as an MCP tool result: JSON text content (what
// every client shows the model) plus the same object as structured content.
func result(ctx context.Context, env envelope.Envelope) *mcp.CallToolResult {
	if p := precodedFrom(ctx); p != nil {
		if res := p.result(env, !env.OK); res != nil {
			return res
		}
	}
	raw, err := json.Marshal(env)
	if err != nil {
		env = envelope.Fail(env.Operation, err)
		raw, _ = json.Marshal(env)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
		IsError:           !env.OK,
	}
}

func canElicit(req *mcp.CallToolRequest) bool {
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil
}

// elicitKey names the one input request of an approval offer.
const elicitKey = "approval"

// offer turns a staged result into an elicitation for the human: the SDK
// asks the client (directly, or as an input-required result on the newer
// protocol) and calls the tool again with the answer, which answered
// records. The state echoed back is a one-time nonce the server minted, so
// a client cannot answer an offer the server never made.
func (s *Server) offer(staged envelope.Envelope) *mcp.CallToolResult {
	st, ok := stagedOf(staged)
	if !ok {
		return nil
	}
	nonce := rand.Text()
	s.mu.Lock()
	s.pending[nonce] = pendingApproval{approvalID: st.Approval.ID, staged: staged, created: time.Now()}
	s.mu.Unlock()
	a := st.Approval
	resume, _ := json.Marshal(a.Resume.Arguments)
	var msg strings.Builder
	fmt.Fprintf(&msg, "The agent asks to run a %s that needs your approval (%s).\n\n", a.Kind, a.ID)
	// The client shows this to the human, often on a terminal: what the
	// agent wrote is shown escaped, one line per field.
	fmt.Fprintf(&msg, "%s\n", visible.Line(a.Title))
	if a.Destructive {
		msg.WriteString("Destructive: it deletes, moves or overwrites existing content.\n")
	}
	fmt.Fprintf(&msg, "Once approved, the agent runs: %s %s\n", a.Resume.Tool, visible.Line(string(resume)))
	if review := reviewOf(a.ID, s); review != "" {
		fmt.Fprintf(&msg, "\n%s\n", visible.Block(review))
	}
	msg.WriteString("\nAccept or deny it here (as `aw approval accept|deny` would), or dismiss this form to decide later in your terminal.")
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{elicitKey: &mcp.ElicitParams{
			Mode:    "form",
			Message: msg.String(),
			RequestedSchema: schema.Schema{
				"type": "object",
				"properties": schema.Schema{
					"decision": schema.Schema{"type": "string", "title": "Decision", "enum": []any{"accept", "deny"},
						"description": "accept lets the agent resume with exactly the call shown; deny refuses this exact operation for 24 hours"},
					"note": schema.Schema{"type": "string", "title": "Note or reason", "description": "optional; a deny reason is passed to the agent", "maxLength": gate.MaxTextChars},
				},
				"required": []string{"decision"},
			},
		}},
		RequestState: nonce,
	}
}

// stagedOf reads the staged record of a pending result: every staged result
// carries status, mode and approval, whatever else its data holds.
func stagedOf(env envelope.Envelope) (gate.Staged, bool) {
	raw, err := json.Marshal(env.Data)
	if err != nil {
		return gate.Staged{}, false
	}
	var st gate.Staged
	if json.Unmarshal(raw, &st) != nil || st.Approval.ID == "" {
		return gate.Staged{}, false
	}
	return st, true
}

// reviewOf is what a human deciding the record is shown (a transaction's
// diff, a command's argv), bounded for a form.
func reviewOf(id string, s *Server) string {
	ws, err := s.open()
	if err != nil {
		return ""
	}
	env, err := gate.ShowApproval(context.Background(), ws, &gate.ApprovalShowRequest{ID: id})
	if err != nil {
		return ""
	}
	if show, ok := env.Data.(gate.ApprovalShow); ok && show.Review != "" {
		return envelope.Clip(show.Review, 4000)
	}
	return ""
}

// answered records the human's answer to an offer exactly as `aw approval
// accept|deny` would (the same dispatch rows), then reports it to the agent.
// A dismissed form decides nothing: the approval stays pending.
func (s *Server) answered(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	p := req.Params
	s.mu.Lock()
	offer, ok := s.pending[p.RequestState]
	delete(s.pending, p.RequestState)
	s.mu.Unlock()
	op := noun(p.Name)
	if !ok {
		return result(ctx, envelope.Fail(op, envelope.Errorf(envelope.InvalidInput,
			"this call carries an answer to an approval offer this server did not make (or already recorded); call the tool again without inputResponses or requestState")))
	}
	staged := offer.staged
	answer, _ := p.InputResponses[elicitKey].(*mcp.ElicitResult)
	decision, note := "", ""
	if answer != nil && answer.Action == "accept" {
		decision, _ = answer.Content["decision"].(string)
		note, _ = answer.Content["note"].(string)
	}
	if decision != "accept" && decision != "deny" {
		staged.Summary = "The user did not decide in the approval form, so it stays pending. " + staged.Summary
		return result(ctx, staged)
	}
	ws, err := s.open()
	if err != nil {
		return result(ctx, envelope.Fail(staged.Operation, err))
	}
	// The human answered the client's form: that answer is the confirmation
	// a terminal would ask for. The setting mcp.elicitApprovals (human-owned)
	// is what makes the client's form trusted as the human's.
	ws.Caller = workspace.Caller{Terminal: true, Confirm: func(string) bool { return true }}
	var row *dispatch.Action
	var r any
	if decision == "accept" {
		row, _ = dispatch.Find("approval", "accept")
		r = &gate.AcceptRequest{ID: offer.approvalID, Note: note}
	} else {
		row, _ = dispatch.Find("approval", "deny")
		r = &gate.DenyRequest{ID: offer.approvalID, Reason: note}
	}
	decided := row.Run(dispatch.WithVocabulary(ctx, dispatch.Arguments), ws, r)
	if !decided.OK {
		decided.Summary = "The user's answer could not be recorded: " + decided.Summary + " The approval is unchanged; " + staged.Summary
		return result(ctx, decided)
	}
	st, _ := stagedOf(staged)
	status := gate.Approved
	if decision == "deny" {
		status = gate.Denied
	}
	env := envelope.New(staged.Operation, "The user decided through the MCP client. "+decided.Summary, map[string]any{
		"status":   status,
		"mode":     st.Mode,
		"approval": st.Approval,
		"decision": decided.Data,
	})
	env.Retention.Importance = envelope.Critical
	env.Retention.Facts = append(decided.Retention.Facts, staged.Retention.Facts...)
	return result(ctx, env)
}

// expire forgets offers nobody answered (the approval itself stays pending
// and can be decided in the terminal).
func (s *Server) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, p := range s.pending {
		if time.Since(p.created) > time.Hour {
			delete(s.pending, k)
		}
	}
}

// warm runs functions on goroutines kept for them. The SDK starts each
// request on a new goroutine, whose stack then grew from a few KiB to what
// a tool call needs (decoding settings, running the action, encoding the
// envelope) by copying itself several times: a tenth of a small call. A
// kept goroutine's stack has grown already. A goroutine is added whenever
// every kept one is busy, so calls still run concurrently.
type warm struct{ jobs chan func() }

// run runs f on a kept goroutine and waits for it; a panic in f is raised
// again here, on the caller's goroutine.
func (w *warm) run(f func()) {
	done := make(chan any, 1)
	w.start(func() {
		defer func() { done <- recover() }()
		f()
	})
	if p := <-done; p != nil {
		panic(p)
	}
}

// start runs job on a kept goroutine without waiting for it.
func (w *warm) start(job func()) {
	select {
	case w.jobs <- job:
	default:
		go w.keep(job)
	}
}

// keep runs job, then every job sent to it, for the life of the process.
func (w *warm) keep(job func()) {
	for {
		job()
		job = <-w.jobs
	}
}
