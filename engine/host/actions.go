package host

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The aw host verbs: a client of a host.workspace server for scripts,
// humans and agents. The server is host.url and the token the variable
// host.tokenEnv names, both from settings; --url may only repeat host.url
// when it is set, so an agent cannot send the token anywhere else.

// ListRequest is aw host ls.
type ListRequest struct {
	Prefix   string `json:"prefix,omitempty" doc:"only files whose path starts with it (a plain prefix: the namespace is flat, '/' is part of a name)"`
	Snapshot string `json:"snapshot,omitempty" doc:"list as of this run snapshot (snapshot_...)"`
	URL      string `json:"url,omitempty" doc:"the host (default: host.url; when host.url is set, only it)"`
}

// GetRequest is aw host get.
type GetRequest struct {
	Path     string `json:"path" doc:"the file's path in the workspace (required)"`
	Version  int64  `json:"version,omitempty" doc:"a retained earlier version instead of the head"`
	Snapshot string `json:"snapshot,omitempty" doc:"read as of this run snapshot (snapshot_...)"`
	URL      string `json:"url,omitempty" doc:"the host (default: host.url; when host.url is set, only it)"`
}

// PutRequest is aw host put.
type PutRequest struct {
	Path        string  `json:"path" doc:"the file's path in the workspace (required): letters, digits, '.', '_', '-' and '/', no '..'"`
	Content     *string `json:"content,omitempty" doc:"the new content (UTF-8); the command line reads stdin when it is not given"`
	ContentType string  `json:"content_type,omitempty" doc:"the content's media type; default text/markdown"`
	IfMatch     string  `json:"if_match,omitempty" doc:"write only if the file is still at this etag (\"v3\", from get or ls), else EDIT_CONFLICT with details.currentVersion; * for any existing file"`
	URL         string  `json:"url,omitempty" doc:"the host (default: host.url; when host.url is set, only it)"`
}

// RemoveRequest is aw host rm.
type RemoveRequest struct {
	Path    string `json:"path" doc:"the file's path in the workspace (required)"`
	IfMatch string `json:"if_match,omitempty" doc:"delete only if the file is still at this etag"`
	URL     string `json:"url,omitempty" doc:"the host (default: host.url; when host.url is set, only it)"`
}

// HistoryRequest is aw host history.
type HistoryRequest struct {
	Path string `json:"path" doc:"the file's path in the workspace (required)"`
	URL  string `json:"url,omitempty" doc:"the host (default: host.url; when host.url is set, only it)"`
}

// WatchRequest is aw host watch.
type WatchRequest struct {
	After          *int64 `json:"after,omitempty" doc:"resume after this event id (0: every retained event); default: only events from now on"`
	Count          int    `json:"count,omitempty" doc:"return once this many events arrived, 1 to 1000; default 1"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" doc:"return after this many seconds with what arrived, 1 to 600; default 30"`
	URL            string `json:"url,omitempty" doc:"the host (default: host.url; when host.url is set, only it)"`
}

// client resolves the host and token for a call.
func client(ws *workspace.Workspace, given string) (*Client, error) {
	set := strings.TrimRight(ws.Settings.Host.URL, "/")
	u := strings.TrimRight(given, "/")
	switch {
	case u == "" && set == "":
		return nil, envelope.Errorf(envelope.InvalidInput, "no host: a human sets one with `aw config set host.url http://127.0.0.1:7370` (the address `aw serve` prints), or pass --url")
	case u == "":
		u = set
	case set != "" && u != set:
		return nil, envelope.Errorf(envelope.InvalidInput, "--url %s is not host.url (%s): the token is sent to host.url only; leave --url out", u, set).With("url", u)
	}
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "host URL %q is not http://HOST:PORT or https://HOST:PORT", u).With("url", u)
	}
	name := ws.Settings.Host.TokenEnv
	token := strings.TrimSpace(os.Getenv(name))
	if token == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "$%s holds no token: a human makes one with `aw serve token add --tenant T --workspace W` and sets it in the environment (host.tokenEnv names the variable)", name).With("tokenEnv", name)
	}
	return &Client{URL: u, Token: token, HTTP: &http.Client{
		Timeout: 0, // watch streams; every call has its context
		// Never follow a redirect: the token is for host.url alone.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

func needPath(p string) error {
	if p == "" {
		return envelope.Errorf(envelope.InvalidInput, "give the file's path: aw host get DIRECTIVES.md")
	}
	if !ValidPath(p) {
		return envelope.Errorf(envelope.InvalidInput, "%s", badPath(p).Message).With("path", p)
	}
	return nil
}

// connect is the client for one request, with the request's time bound.
func connect(ctx context.Context, ws *workspace.Workspace, given string) (*Client, context.Context, context.CancelFunc, error) {
	c, err := client(ws, given)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	return c, ctx, cancel, nil
}

// Ls lists the workspace's files (metadata).
func Ls(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	c, ctx, cancel, err := connect(ctx, ws, req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer cancel()
	files, err := c.List(ctx, req.Prefix, req.Snapshot)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("host.ls", fmt.Sprintf("%d files on %s", len(files), c.URL), map[string]any{"files": files, "url": c.URL})
	return env, nil
}

// Get reads one file.
func Get(ctx context.Context, ws *workspace.Workspace, req *GetRequest) (envelope.Envelope, error) {
	if err := needPath(req.Path); err != nil {
		return envelope.Envelope{}, err
	}
	c, ctx, cancel, err := connect(ctx, ws, req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer cancel()
	f, err := c.Get(ctx, req.Path, req.Version, req.Snapshot)
	if err != nil {
		return envelope.Envelope{}, err
	}
	data := map[string]any{"path": f.Path, "content": f.Content, "contentType": f.ContentType, "version": f.Version, "etag": f.ETag, "updatedAt": f.UpdatedAt, "bytes": len(f.Content), "truncated": false}
	env := envelope.New("host.get", fmt.Sprintf("%s version %d (%d bytes, etag %s)", f.Path, f.Version, len(f.Content), f.ETag), data)
	// A file may be far larger than an envelope should carry inline: the
	// rest goes to an artifact, as every bounded answer does.
	if limit := ws.Settings.MaxToolResultChars; len(f.Content) > limit {
		a, err := ws.Store.WriteArtifact("host", strings.ReplaceAll(f.Path, "/", "_")+fmt.Sprintf(".v%d", f.Version), []byte(f.Content), "host file "+f.Path+" version "+fmt.Sprint(f.Version))
		if err != nil {
			return envelope.Envelope{}, err
		}
		data["content"], data["truncated"] = envelope.Clip(f.Content, limit), true
		env.Artifacts = append(env.Artifacts, a)
		env.Summary += "; the content is cut, the whole of it is " + a.Path
	}
	env.Omit("data.content")
	return env, nil
}

// Put writes one file.
func Put(ctx context.Context, ws *workspace.Workspace, req *PutRequest) (envelope.Envelope, error) {
	if err := needPath(req.Path); err != nil {
		return envelope.Envelope{}, err
	}
	if req.Content == nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "give the content: --content TEXT, or on stdin")
	}
	c, ctx, cancel, err := connect(ctx, ws, req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer cancel()
	f, ids, err := c.Put(ctx, req.Path, *req.Content, req.ContentType, req.IfMatch)
	if err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("wrote %s version %d (etag %s)", f.Path, f.Version, f.ETag)
	if len(ids) > 0 {
		summary += "; redacted " + strings.Join(ids, ", ")
	}
	data := map[string]any{"path": f.Path, "version": f.Version, "etag": f.ETag, "updatedAt": f.UpdatedAt, "contentType": f.ContentType, "bytes": len(f.Content), "redactions": nonNil(ids)}
	env := envelope.New("host.put", summary, data)
	env.Fact("%s is at %s on %s", f.Path, f.ETag, c.URL)
	return env, nil
}

// Rm deletes one file (a tombstone version).
func Rm(ctx context.Context, ws *workspace.Workspace, req *RemoveRequest) (envelope.Envelope, error) {
	if err := needPath(req.Path); err != nil {
		return envelope.Envelope{}, err
	}
	c, ctx, cancel, err := connect(ctx, ws, req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer cancel()
	v, err := c.Delete(ctx, req.Path, req.IfMatch)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return envelope.New("host.rm", fmt.Sprintf("deleted %s (tombstone version %d; earlier versions stay in its history)", req.Path, v), map[string]any{"path": req.Path, "version": v, "deleted": true}), nil
}

// History lists one file's retained versions.
func History(ctx context.Context, ws *workspace.Workspace, req *HistoryRequest) (envelope.Envelope, error) {
	if err := needPath(req.Path); err != nil {
		return envelope.Envelope{}, err
	}
	c, ctx, cancel, err := connect(ctx, ws, req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer cancel()
	vs, err := c.History(ctx, req.Path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("%s: no retained versions", req.Path)
	if len(vs) > 0 {
		summary = fmt.Sprintf("%s: %d retained versions, newest %d", req.Path, len(vs), vs[0].Version)
	}
	return envelope.New("host.history", summary, map[string]any{"path": req.Path, "versions": vs}), nil
}

// Watch waits for workspace.updated events.
func Watch(ctx context.Context, ws *workspace.Workspace, req *WatchRequest) (envelope.Envelope, error) {
	count, err := envelope.Limit(req.Count, 1, 1000)
	if err != nil {
		return envelope.Envelope{}, err
	}
	secs, err := envelope.Limit(req.TimeoutSeconds, 30, 600)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if req.After != nil && *req.After < 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "--after %d is not an event id (0 or more)", *req.After)
	}
	c, err := client(ws, req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	events, gap, err := c.Watch(ctx, req.After, count, time.Duration(secs)*time.Second)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var last int64
	if req.After != nil {
		last = *req.After
	}
	if len(events) > 0 {
		last = events[len(events)-1].ID
	}
	summary := fmt.Sprintf("%d workspace.updated events", len(events))
	if len(events) == 0 {
		summary = fmt.Sprintf("no event in %ds", secs)
	}
	data := map[string]any{"events": events, "last_event_id": last, "gap": gap}
	env := envelope.New("host.watch", summary, data)
	if len(events) > 0 {
		env.Fact("resume with: aw host watch --after %d", last)
	}
	if gap {
		env.Fact("events before the oldest retained were dropped: list the files again")
	}
	return env, nil
}
