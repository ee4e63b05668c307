// Package browser owns aw's browser sessions (workspace_browser): a headless Chromium started by `open` in a process
// group of its own, kept alive between aw calls, and reconnected through
// its DevTools websocket (chromedp) by every later call. The session file
// .agentic/browser/<session_id>.json holds what that takes; the profile
// and Chromium's log live in .agentic/browser/<session_id>/.
//
// Security: every URL aw is asked to visit must be http(s) and, unless
// research.allowPrivateNetwork is on, resolve to public addresses only;
// while a call is attached, every request of the page (subresources and
// redirect hops included) is paused and checked the same way. open with a
// URL and every control type are gated (kind "browser": web egress, decided
// like a research fetch); evaluate needs browser.allowEvaluate. The page's
// content is data: nothing in it changes policy. The package never prints.
//
// What the request check does not cover, by construction: requests a page
// makes between aw calls (timers, workers) when no aw process is attached
// to pause them; WebSocket connections and service-worker fetches, which
// the Fetch domain does not pause; and DNS rebinding, because Chromium
// resolves the name again after aw judged it. Sessions therefore start on
// a URL checked before Chromium sees it, and research.allowPrivateNetwork
// stays off unless a human turns it on.
//
// Nothing outlives its use: each session has a watchdog process (see
// Watch) that ends it after browser.idleSeconds unused (30 minutes by
// default) or when its workspace, record or profile disappears; the next
// browser call of any aw also ends idle sessions, should the watchdog have
// been killed. browser.maxSessions caps the live sessions of a workspace:
// opening one more closes the one unused the longest.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// OpenRequest starts a session, optionally at a URL.
type OpenRequest struct {
	URL string `json:"url,omitempty" doc:"the page to load, http or https (gated as web egress); omit to open a blank session"`
}

// SessionRequest names a session (read, close).
type SessionRequest struct {
	SessionID string `json:"session_id" doc:"the session open returned (a unique prefix of its id will do)"`
}

// ListRequest has no fields.
type ListRequest struct{}

// ControlRequest drives the page: one of Types, with the fields it takes.
type ControlRequest struct {
	SessionID      string   `json:"session_id" doc:"the session to drive"`
	Type           string   `json:"type" enum:"navigate,click,click_text,type,press,wait,scroll,back,reload,evaluate" doc:"what to do"`
	URL            string   `json:"url,omitempty" doc:"navigate: the page to load"`
	Selector       string   `json:"selector,omitempty" doc:"click, type, wait: the CSS selector of the element; press: an optional element to focus first"`
	Text           string   `json:"text,omitempty" doc:"click_text: the visible text to click; type: the text to type"`
	Key            string   `json:"key,omitempty" doc:"press: the key, e.g. Enter, Tab, ArrowDown"`
	Clear          bool     `json:"clear,omitempty" doc:"type: empty the field first"`
	To             string   `json:"to,omitempty" doc:"scroll: bottom, top, or a CSS selector to bring into view"`
	By             *int     `json:"by,omitempty" doc:"scroll: pixels to scroll by (negative: up)"`
	Expression     string   `json:"expression,omitempty" doc:"evaluate: a JavaScript expression; its JSON value is returned"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"seconds the control may take, at most 120 (default 10 for wait, click and type; 30 for navigations)"`
}

// Types are the control types.
var Types = []string{"navigate", "click", "click_text", "type", "press", "wait", "scroll", "back", "reload", "evaluate"}

// SessionInfo is a session as open, list and close show it.
type SessionInfo struct {
	SessionID   string    `json:"sessionId"`
	Status      string    `json:"status"`
	Pid         int       `json:"pid"`
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	UserDataDir string    `json:"userDataDir"`
	CreatedAt   time.Time `json:"createdAt"`
	LastUsedAt  time.Time `json:"lastUsedAt"`
	IdleSeconds int64     `json:"idleSeconds"`
}

// PageResult is the data of read and control.
type PageResult struct {
	SessionID    string   `json:"sessionId"`
	Type         string   `json:"type,omitempty"`
	URL          string   `json:"url"`
	Title        string   `json:"title"`
	Text         *string  `json:"text,omitempty"`
	TextChars    int      `json:"textChars,omitempty"`
	Truncated    bool     `json:"truncated,omitempty"`
	Links        []Link   `json:"links,omitempty"`
	LinksTotal   int      `json:"linksTotal,omitempty"`
	LinksOmitted int      `json:"linksOmitted,omitempty"`
	Value        any      `json:"value,omitempty"`
	ScrollY      *float64 `json:"scrollY,omitempty"`
	Blocked      []string `json:"blocked,omitempty"`
	Reaped       []string `json:"reaped,omitempty"`
	// Evicted is the session open closed to stay within
	// browser.maxSessions.
	Evicted string `json:"evicted,omitempty"`
	// Sandbox is the OS sandbox Chromium runs in (set when the session
	// opens, and on every page envelope after).
	Sandbox    *sandbox.Report `json:"sandbox,omitempty"`
	DurationMs int64           `json:"durationMs"`
}

// ListResult is list's data.
type ListResult struct {
	Sessions []SessionInfo `json:"sessions"`
	Reaped   []string      `json:"reaped,omitempty"`
	// IdleLimitSeconds is how long a session may go unused before it ends
	// (browser.idleSeconds).
	IdleLimitSeconds int64 `json:"idleLimitSeconds"`
}

// CloseResult is close's data.
type CloseResult struct {
	SessionID string `json:"sessionId"`
	// WasAlive is false when Chromium had already gone; the files are
	// removed either way.
	WasAlive bool     `json:"wasAlive"`
	Closed   bool     `json:"closed"`
	Reaped   []string `json:"reaped,omitempty"`
}

// prologue is what every call does first: refuse where sessions cannot
// work, and end sessions idle past their limit.
func prologue(ws *workspace.Workspace) ([]string, error) {
	if !supported {
		return nil, envelope.Errorf(envelope.ToolDisabled, "browser sessions need a Unix-like system (process groups); use aw research fetch here")
	}
	if err := os.MkdirAll(ws.Store.Path("browser"), 0o700); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot create %s: %v", ws.Store.Path("browser"), err)
	}
	return reap(ws.Store, time.Now()), nil
}

// Open starts a headless Chromium for a new session, and navigates it to
// the URL when one is given (checked before Chromium starts).
func Open(ctx context.Context, ws *workspace.Workspace, req *OpenRequest) (envelope.Envelope, error) {
	began := time.Now()
	reaped, err := prologue(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	guard := NewGuard(ws.Settings.Research.AllowPrivateNetwork)
	if req.URL != "" {
		u, err := guard.CheckNavigation(ctx, req.URL)
		if err != nil {
			return envelope.Envelope{}, err
		}
		req.URL = u
	}
	approval, staged, err := gateOpen(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if staged != nil {
		return *staged, nil
	}
	exe, err := Executable(ws.Settings.Browser.Executable)
	if err != nil {
		return envelope.Envelope{}, err
	}
	evicted, err := makeRoom(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	id := store.NewID("session")
	dir := sessionDir(ws.Store, id)
	unlock, err := lockFile(lockPath(ws.Store, id))
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot lock session %s: %v", id, err)
	}
	defer unlock()
	p, err := launch(ctx, ws, exe, dir)
	if err != nil {
		os.RemoveAll(dir)
		os.Remove(lockPath(ws.Store, id))
		return envelope.Envelope{}, err
	}
	now := time.Now().UTC()
	sess := &Session{
		ID: id, Pid: p.pid, ProcessStart: p.start, Executable: exe, WebSocketURL: p.wsURL, Port: p.port,
		UserDataDir: dir + string(os.PathSeparator) + "profile", TargetID: p.target,
		URL: "about:blank", CreatedAt: now, LastUsedAt: now, Sandbox: &p.sandbox,
		IdleSeconds: int64(ws.Settings.Browser.IdleSeconds),
	}
	if err := save(ws.Store, sess); err != nil {
		end(ws.Store, sess)
		return envelope.Envelope{}, err
	}
	if err := startWatch(ws.Store, ws.Root, sess); err != nil {
		end(ws.Store, sess)
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot start the watchdog of browser session %s (%v), so it was closed: a session nothing watches could outlive its use", id, err)
	}
	res := &PageResult{SessionID: id, URL: "about:blank", Reaped: reaped, Evicted: evicted, Sandbox: sess.Sandbox}
	if req.URL != "" {
		t, err := attach(ctx, sess, guard)
		if err != nil {
			end(ws.Store, sess)
			return envelope.Envelope{}, err
		}
		nctx, cancel := context.WithTimeout(t.ctx, navTimeout)
		err = t.navigate(nctx, req.URL)
		cancel()
		// The page was requested: the egress the approval allowed happened.
		if cerr := gate.Consume(ws, approval); cerr != nil {
			t.close()
			end(ws.Store, sess)
			return envelope.Envelope{}, cerr
		}
		res.URL, res.Title = t.where(t.ctx)
		res.Blocked = guard.Blocked()
		t.close()
		if err != nil {
			// The session stays usable (it is on the error page): say so.
			if e, ok := err.(*envelope.Error); ok {
				e.Message += fmt.Sprintf(". Session %s was opened anyway; navigate it elsewhere or `aw browser close %s`", id, id)
				e.With("session_id", id)
			}
			touch(ws.Store, id, res.URL, res.Title, t.target)
			return envelope.Envelope{}, err
		}
		if err := touch(ws.Store, id, res.URL, res.Title, t.target); err != nil {
			return envelope.Envelope{}, err
		}
	}
	res.DurationMs = time.Since(began).Milliseconds()
	where := res.URL
	if res.Title != "" {
		where = fmt.Sprintf("%s (%q)", res.URL, envelope.Clip(res.Title, 100))
	}
	summary := fmt.Sprintf("Opened browser session %s (Chromium pid %d) at %s. Read it with `aw browser read %s`; close it with `aw browser close %s` (it closes by itself after %s unused).", id, p.pid, where, id, id, sess.idleLimit())
	if evicted != "" {
		summary += fmt.Sprintf(" Session %s, unused the longest, was closed to stay within browser.maxSessions (%d).", evicted, ws.Settings.Browser.MaxSessions)
	}
	env := envelope.New("", summary, res)
	env.Retention.Importance = envelope.High
	env.Fact("browser session %s open at %s (pid %d)", id, envelope.Clip(res.URL, 200), p.pid)
	env.Fact("browser %s", p.sandbox.Summary())
	if evicted != "" {
		env.Fact("browser session %s closed: browser.maxSessions is %d", evicted, ws.Settings.Browser.MaxSessions)
	}
	factReaped(&env, reaped)
	return env, nil
}

// makeRoom closes the live session unused the longest when the workspace
// already has browser.maxSessions of them, and returns its id. Sessions a
// call is using right now are never closed; when every one is, open is
// refused.
func makeRoom(ws *workspace.Workspace) (string, error) {
	list, err := all(ws.Store)
	if err != nil {
		return "", err
	}
	list = slices.DeleteFunc(list, func(s *Session) bool { return !alive(s.Pid, s.ProcessStart) })
	max := ws.Settings.Browser.MaxSessions
	if len(list) < max {
		return "", nil
	}
	slices.SortFunc(list, func(a, b *Session) int { return a.LastUsedAt.Compare(b.LastUsedAt) })
	for _, sess := range list {
		unlock, err := lockFile(lockPath(ws.Store, sess.ID), true)
		if err != nil {
			continue // in use by a call right now
		}
		end(ws.Store, sess)
		unlock()
		return sess.ID, nil
	}
	return "", envelope.Errorf(envelope.InvalidInput, "%d browser sessions are open and every one is in use by a call right now (browser.maxSessions is %d); close one with `aw browser close SESSION` and open again", len(list), max).With("maxSessions", max)
}

// gateOpen gates an open with a URL as web egress (kind "browser"), the
// same decision as a research fetch of that URL: Manual stages it, Plan
// needs an approved plan, Auto runs it. An open without a URL reaches no
// network and is not gated. It runs before Chromium starts, so a staged
// or refused open leaves no process and no profile behind.
func gateOpen(ws *workspace.Workspace, req *OpenRequest) (string, *envelope.Envelope, error) {
	if req.URL == "" {
		return "", nil, nil
	}
	args := map[string]any{"action": "open", "url": req.URL}
	d, err := gate.Check(ws, gate.Operation{
		Kind:   "browser",
		Title:  envelope.Clip("Browser open "+req.URL, 200),
		Hash:   gate.Hash(args),
		Resume: gate.Resume{Tool: "workspace_browser", Arguments: args},
		Review: "start a browser session and load " + req.URL,
	})
	if err != nil {
		return "", nil, err
	}
	if d.Staged != nil {
		env := gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode)
		return "", &env, nil
	}
	return d.Approval, nil, nil
}

// navTimeout bounds a page load.
const navTimeout = 30 * time.Second

// Read returns the page's URL, title, visible text and links, bounded like
// research fetch: the text by maxToolResultChars with the whole text as an
// artifact, the links by a quarter of it (at least 1,000 characters).
func Read(ctx context.Context, ws *workspace.Workspace, req *SessionRequest) (envelope.Envelope, error) {
	began := time.Now()
	sess, unlock, reaped, err := use(ctx, ws, req.SessionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	guard := NewGuard(ws.Settings.Research.AllowPrivateNetwork)
	t, err := attach(ctx, sess, guard)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer t.close()
	rctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
	defer cancel()
	pg, err := t.read(rctx)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if err := touch(ws.Store, sess.ID, pg.URL, pg.Title, t.target); err != nil {
		return envelope.Envelope{}, err
	}
	res := &PageResult{SessionID: sess.ID, URL: pg.URL, Title: pg.Title, Reaped: reaped, Blocked: guard.Blocked(), Sandbox: sess.Sandbox}
	env := envelope.New("", "", res)
	max := ws.Settings.MaxToolResultChars
	text := strings.TrimSpace(pg.Text)
	res.TextChars = utf8.RuneCountInString(text)
	inline := clipChars(text, max)
	res.Text = &inline
	if len(inline) < len(text) {
		res.Truncated = true
		a, err := ws.Store.WriteArtifact("page-text", sess.ID+".txt", []byte(text), fmt.Sprintf("the whole visible text of %s", pg.URL))
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, a)
	}
	res.Links, res.LinksOmitted = boundLinks(pg.Links, max)
	res.LinksTotal = len(pg.Links)
	res.DurationMs = time.Since(began).Milliseconds()
	env.Summary = fmt.Sprintf("Read %s (%q) in session %s: %d characters of text%s, %d links%s.",
		pg.URL, envelope.Clip(pg.Title, 100), sess.ID, res.TextChars, map[bool]string{true: " (truncated; the whole text is the artifact)", false: ""}[res.Truncated],
		len(pg.Links), map[bool]string{true: fmt.Sprintf(" (%d omitted)", res.LinksOmitted), false: ""}[res.LinksOmitted > 0])
	env.Omit("data.text", "data.links")
	env.Fact("session %s at %s", sess.ID, envelope.Clip(pg.URL, 200))
	if pg.Title != "" {
		env.Fact("title: %s", envelope.Clip(pg.Title, 200))
	}
	factReaped(&env, reaped)
	return env, nil
}

// use loads a session for a call that drives it: reaps idle sessions,
// takes the session's call lock, and refuses a session whose Chromium is
// gone.
func use(ctx context.Context, ws *workspace.Workspace, id string) (*Session, func(), []string, error) {
	if id == "" {
		return nil, nil, nil, envelope.Errorf(envelope.InvalidInput, "session_id is required; `aw browser list` shows the sessions")
	}
	reaped, err := prologue(ws)
	if err != nil {
		return nil, nil, nil, err
	}
	if _, err := load(ws.Store, id); err != nil {
		return nil, nil, nil, err
	}
	unlock, err := lockFile(lockPath(ws.Store, id))
	if err != nil {
		return nil, nil, nil, envelope.Errorf(envelope.Internal, "cannot lock session %s: %v", id, err)
	}
	sess, err := load(ws.Store, id) // again: it may have closed while we waited
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	if !alive(sess.Pid, sess.ProcessStart) {
		unlock()
		return nil, nil, nil, envelope.Errorf(envelope.NotFound, "browser session %s is dead: its Chromium (pid %d) is gone; `aw browser close %s` removes its files, `aw browser open URL` starts a new one", id, sess.Pid, id).With("session_id", id).With("status", Dead)
	}
	return sess, unlock, reaped, nil
}

// Control drives the page of a session with one control type. It is
// gated (kind "browser"): Manual stages it, Plan needs an approved plan.
func Control(ctx context.Context, ws *workspace.Workspace, req *ControlRequest) (envelope.Envelope, error) {
	began := time.Now()
	if err := validate(req); err != nil {
		return envelope.Envelope{}, err
	}
	if req.Type == "evaluate" && !ws.Settings.Browser.AllowEvaluate {
		return envelope.Envelope{}, envelope.Errorf(envelope.ToolDisabled,
			"evaluate runs arbitrary JavaScript in the page and is off: a human can allow it with `aw config set browser.allowEvaluate true`; the other control types (click, type, scroll, ...) need no setting").With("setting", "browser.allowEvaluate")
	}
	guard := NewGuard(ws.Settings.Research.AllowPrivateNetwork)
	if req.Type == "navigate" {
		u, err := guard.CheckNavigation(ctx, req.URL)
		if err != nil {
			return envelope.Envelope{}, err
		}
		req.URL = u
	}
	if _, err := load(ws.Store, req.SessionID); err != nil {
		return envelope.Envelope{}, err
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind:  "browser",
		Title: envelope.Clip(fmt.Sprintf("Browser %s in %s: %s", req.Type, req.SessionID, describe(req)), 200),
		Hash: gate.Hash(struct {
			Kind string
			Req  ControlRequest
		}{"browser", *req}),
		Resume: gate.Resume{Tool: "workspace_browser", Arguments: resume(req)},
		Review: describe(req),
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	sess, unlock, reaped, err := use(ctx, ws, req.SessionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	t, err := attach(ctx, sess, guard)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer t.close()
	res := &PageResult{SessionID: sess.ID, Type: req.Type, Reaped: reaped, Sandbox: sess.Sandbox}
	if err := t.control(req, res); err != nil {
		res.URL, res.Title = t.where(t.ctx)
		touch(ws.Store, sess.ID, res.URL, res.Title, t.target)
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	res.URL, res.Title = t.where(t.ctx)
	res.Blocked = guard.Blocked()
	if err := touch(ws.Store, sess.ID, res.URL, res.Title, t.target); err != nil {
		return envelope.Envelope{}, err
	}
	res.DurationMs = time.Since(began).Milliseconds()
	summary := fmt.Sprintf("%s in session %s: %s; the page is %s (%q). `aw browser read %s` shows it.",
		req.Type, sess.ID, describe(req), res.URL, envelope.Clip(res.Title, 100), sess.ID)
	if len(res.Blocked) > 0 {
		summary += fmt.Sprintf(" %d request(s) to non-public addresses were refused (research.allowPrivateNetwork is off).", len(res.Blocked))
	}
	env := envelope.New("", summary, res)
	env.Fact("session %s %s: now at %s", sess.ID, req.Type, envelope.Clip(res.URL, 200))
	if len(res.Blocked) > 0 {
		env.Retention.Importance = envelope.High
		env.Fact("refused %d request(s) to non-public addresses, first %s", len(res.Blocked), envelope.Clip(res.Blocked[0], 200))
	}
	if req.Type == "evaluate" {
		env.Omit("data.value")
	}
	factReaped(&env, reaped)
	return env, nil
}

func validate(req *ControlRequest) error {
	if req.SessionID == "" {
		return envelope.Errorf(envelope.InvalidInput, "session_id is required; `aw browser list` shows the sessions")
	}
	need := func(field, v, example string) error {
		if strings.TrimSpace(v) == "" {
			return envelope.Errorf(envelope.InvalidInput, "control type %s needs %s: %s", req.Type, field, example).With("type", req.Type)
		}
		return nil
	}
	if req.TimeoutSeconds != nil && (*req.TimeoutSeconds <= 0 || *req.TimeoutSeconds > 120) {
		return envelope.Errorf(envelope.InvalidInput, "timeout_seconds %v is out of range: pass 0 < seconds <= 120", *req.TimeoutSeconds)
	}
	switch req.Type {
	case "navigate":
		return need("url", req.URL, "`aw browser control SESSION --type navigate https://example.com/`")
	case "click":
		return need("selector", req.Selector, "`--type click 'button#save'` (a CSS selector)")
	case "click_text":
		return need("text", req.Text, "`--type click_text 'Sign in'`")
	case "type":
		if err := need("selector", req.Selector, "`--type type 'input[name=q]' 'search words'`"); err != nil {
			return err
		}
		if req.Text == "" && !req.Clear {
			return need("text", req.Text, "`--type type 'input[name=q]' 'search words'`")
		}
	case "press":
		if err := need("key", req.Key, "`--type press Enter` (Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Space, or one character)"); err != nil {
			return err
		}
		if _, ok := keyOf(req.Key); !ok {
			return envelope.Errorf(envelope.InvalidInput, "unknown key %q: pass Enter, Tab, Escape, Backspace, Delete, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, Space, or a single character", req.Key).With("key", req.Key)
		}
	case "wait":
		return need("selector", req.Selector, "`--type wait '#results'`")
	case "scroll":
		if req.By != nil && req.To != "" {
			return envelope.Errorf(envelope.InvalidInput, "scroll takes --to (bottom, top or a CSS selector) or --by PIXELS, not both")
		}
	case "back", "reload":
	case "evaluate":
		return need("expression", req.Expression, "`--type evaluate 'document.title'`")
	case "":
		return envelope.Errorf(envelope.InvalidInput, "control needs a type: one of %s", strings.Join(Types, ", "))
	default:
		return envelope.Errorf(envelope.InvalidInput, "unknown control type %q: the types are %s", req.Type, strings.Join(Types, ", ")).With("type", req.Type)
	}
	return nil
}

// describe is the human-readable form of a control, for titles and the
// approval a human reads.
func describe(req *ControlRequest) string {
	switch req.Type {
	case "navigate":
		return "go to " + req.URL
	case "click":
		return "click " + req.Selector
	case "click_text":
		return fmt.Sprintf("click the element showing %q", req.Text)
	case "type":
		s := fmt.Sprintf("type %q into %s", envelope.Clip(req.Text, 80), req.Selector)
		if req.Clear {
			s += " (cleared first)"
		}
		return s
	case "press":
		if req.Selector != "" {
			return fmt.Sprintf("press %s in %s", req.Key, req.Selector)
		}
		return "press " + req.Key
	case "wait":
		return "wait for " + req.Selector
	case "scroll":
		switch {
		case req.By != nil:
			return fmt.Sprintf("scroll by %d px", *req.By)
		case req.To != "":
			return "scroll to " + req.To
		}
		return "scroll to the bottom"
	case "evaluate":
		return "evaluate " + envelope.Clip(req.Expression, 150)
	}
	return req.Type
}

// resume is the exact call to issue after an approval.
func resume(req *ControlRequest) map[string]any {
	raw, _ := json.Marshal(req)
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["action"] = "control"
	return m
}

// List shows every session, live or dead, checked now: the pid (with its
// start time) and the DevTools endpoint.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	reaped, err := prologue(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	list, err := all(ws.Store)
	if err != nil {
		return envelope.Envelope{}, err
	}
	now := time.Now()
	res := &ListResult{Sessions: []SessionInfo{}, Reaped: reaped, IdleLimitSeconds: int64(ws.Settings.Browser.IdleSeconds)}
	counts := map[string]int{}
	for i := len(list) - 1; i >= 0; i-- { // newest first
		s := list[i]
		info := info(ws, s, status(ctx, s), now)
		counts[info.Status]++
		res.Sessions = append(res.Sessions, info)
	}
	summary := fmt.Sprintf("%d browser session(s): %d live, %d dead", len(list), counts[Live], counts[Dead])
	if counts[Unresponsive] > 0 {
		summary += fmt.Sprintf(", %d unresponsive", counts[Unresponsive])
	}
	summary += fmt.Sprintf(". A session closes by itself after %s unused (browser.idleSeconds).", time.Duration(ws.Settings.Browser.IdleSeconds)*time.Second)
	if counts[Dead] > 0 {
		summary += " `aw browser close SESSION` removes a dead session's files."
	}
	env := envelope.New("", summary, res)
	for i, s := range res.Sessions {
		if i == 20 {
			break
		}
		env.Fact("session %s %s at %s", s.SessionID, s.Status, envelope.Clip(s.URL, 120))
	}
	factReaped(&env, reaped)
	return env, nil
}

func info(ws *workspace.Workspace, s *Session, st string, now time.Time) SessionInfo {
	return SessionInfo{
		SessionID: s.ID, Status: st, Pid: s.Pid, URL: s.URL, Title: s.Title,
		UserDataDir: ws.Rel(s.UserDataDir), CreatedAt: s.CreatedAt, LastUsedAt: s.LastUsedAt,
		IdleSeconds: int64(now.Sub(s.LastUsedAt) / time.Second),
	}
}

// Close ends the session's Chromium tree and removes its record, profile
// and log. Closing a dead session removes its files.
func Close(ctx context.Context, ws *workspace.Workspace, req *SessionRequest) (envelope.Envelope, error) {
	if req.SessionID == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "session_id is required; `aw browser list` shows the sessions")
	}
	reaped, err := prologue(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if _, err := load(ws.Store, req.SessionID); err != nil {
		return envelope.Envelope{}, err
	}
	unlock, err := lockFile(lockPath(ws.Store, req.SessionID))
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot lock session %s: %v", req.SessionID, err)
	}
	defer unlock()
	sess, err := load(ws.Store, req.SessionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	wasAlive := alive(sess.Pid, sess.ProcessStart)
	if left := end(ws.Store, sess); len(left) > 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "session %s: %d Chromium process(es) would not die even after SIGKILL (pids %v); check them with ps", sess.ID, len(left), left).With("pids", left)
	}
	res := &CloseResult{SessionID: sess.ID, WasAlive: wasAlive, Closed: true, Reaped: reaped}
	msg := fmt.Sprintf("Closed browser session %s: Chromium (pid %d) ended and its profile removed.", sess.ID, sess.Pid)
	if !wasAlive {
		msg = fmt.Sprintf("Browser session %s was already dead (pid %d gone); its files are removed.", sess.ID, sess.Pid)
	}
	env := envelope.New("", msg, res)
	env.Fact("browser session %s closed", sess.ID)
	factReaped(&env, reaped)
	return env, nil
}

func factReaped(env *envelope.Envelope, reaped []string) {
	if len(reaped) > 0 {
		env.Fact("idle browser session(s) closed: %s", strings.Join(reaped, ", "))
	}
}

// clipChars keeps the first n characters of s.
func clipChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// boundLinks keeps links in document order while their JSON fits a
// quarter of max characters (at least 1,000), and counts the rest.
func boundLinks(links []Link, max int) ([]Link, int) {
	share := max / 4
	if share < 1000 {
		share = 1000
	}
	used := 2
	out := []Link{}
	for i, l := range links {
		raw, _ := json.Marshal(l)
		n := utf8.RuneCount(raw) + 1
		if used+n > share {
			return out, len(links) - i
		}
		used += n
		out = append(out, l)
	}
	return out, 0
}
