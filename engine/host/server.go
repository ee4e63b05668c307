package host

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// OpenAPI is the API's OpenAPI 3.1 document, served at /v1/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// Server is the HTTP API over a store.
type Server struct {
	db     *DB
	store  *Store
	limits Limits
	hub    *hub
	// done ends every event stream when the server shuts down (a stream
	// never goes idle by itself, so Shutdown alone would wait for ever).
	done   context.Context
	cancel context.CancelFunc
	// Poll is how often an event stream re-reads without a wake-up (a
	// missed notification costs at most this much delay).
	Poll time.Duration
}

// NewServer returns the API over db.
func NewServer(db *DB, limits Limits, secrets []Secret) *Server {
	s := &Server{db: db, limits: limits, hub: newHub(), Poll: 2 * time.Second}
	s.store = NewStore(db, limits, NewRedactor(secrets))
	s.store.written = s.hub.notify
	s.done, s.cancel = context.WithCancel(context.Background())
	return s
}

// KeepEvents sets how many events each workspace keeps (at least 1).
func (s *Server) KeepEvents(n int64) { s.store.events = max(n, 1) }

// Serve serves on ln until ctx ends, then shuts down gracefully. With
// PostgreSQL it also listens for other replicas' writes.
func (s *Server) Serve(ctx context.Context, ln net.Listener, certFile, keyFile string) error {
	if s.db.postgres {
		go s.listen(s.done)
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	errc := make(chan error, 1)
	go func() {
		if certFile != "" {
			errc <- srv.ServeTLS(ln, certFile, keyFile)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		s.cancel()
		return err
	case <-ctx.Done():
	}
	s.cancel()
	shut, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	return srv.Shutdown(shut)
}

// listen turns other replicas' NOTIFYs into wake-ups. A notification is
// only a wake-up: streams always re-read the event table, so one lost
// while reconnecting costs at most the poll interval.
func (s *Server) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, s.db.url)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN aw_host_workspace")
		}
		if err == nil {
			s.hub.notifyAll() // anything written while not listening
			for {
				n, werr := conn.WaitForNotification(ctx)
				if werr != nil {
					break
				}
				tenant, workspace, _ := strings.Cut(n.Payload, "\n")
				s.hub.notify(tenant, workspace)
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// hub wakes the event streams of a workspace after a write.
type hub struct {
	mu   sync.Mutex
	wake map[string]chan struct{}
}

func newHub() *hub { return &hub{wake: map[string]chan struct{}{}} }

func (h *hub) wait(tenant, workspace string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := tenant + "\x00" + workspace
	c, ok := h.wake[k]
	if !ok {
		c = make(chan struct{})
		h.wake[k] = c
	}
	return c
}

func (h *hub) notify(tenant, workspace string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := tenant + "\x00" + workspace
	if c, ok := h.wake[k]; ok {
		close(c)
		delete(h.wake, k)
	}
}

func (h *hub) notifyAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, c := range h.wake {
		close(c)
		delete(h.wake, k)
	}
}

// Capabilities is the body of GET /v1/host/capabilities.
func (s *Server) Capabilities() map[string]any {
	return map[string]any{"capabilities": map[string]any{"workspace": map[string]any{
		"supported": true, "versioned": true,
		"maxFileBytes": s.limits.MaxFileBytes, "maxFiles": s.limits.MaxFiles, "maxVersions": s.limits.MaxVersions,
	}}}
}

const (
	filesPrefix   = "/v1/host/workspace/files"
	historyPrefix = "/v1/host/workspace/history/"
)

// ServeHTTP routes by the escaped path, not a cleaning mux: a path with
// ".." must be refused as a bad workspace path, never redirected or
// resolved.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	raw := r.URL.EscapedPath()
	switch {
	case raw == "/v1/host/capabilities":
		if s.method(w, r, "GET") {
			writeJSON(w, http.StatusOK, s.Capabilities())
		}
	case raw == "/v1/openapi.json":
		if s.method(w, r, "GET") {
			w.Header().Set("Content-Type", "application/json")
			w.Write(OpenAPI)
		}
	case raw == filesPrefix || raw == filesPrefix+"/":
		if p, ok := s.auth(w, r, "GET"); ok {
			s.list(w, r, p)
		}
	case strings.HasPrefix(raw, filesPrefix+"/"):
		path, ok := unescape(w, strings.TrimPrefix(raw, filesPrefix+"/"))
		if !ok {
			return
		}
		p, ok := s.auth(w, r, "GET", "PUT", "DELETE")
		if !ok {
			return
		}
		switch r.Method {
		case "GET":
			s.get(w, r, p, path)
		case "PUT":
			s.put(w, r, p, path)
		case "DELETE":
			s.delete(w, r, p, path)
		}
	case strings.HasPrefix(raw, historyPrefix):
		path, ok := unescape(w, strings.TrimPrefix(raw, historyPrefix))
		if !ok {
			return
		}
		if p, ok := s.auth(w, r, "GET"); ok {
			vs, err := s.store.History(r.Context(), p, path)
			if err != nil {
				writeError(w, err)
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"path": path, "versions": vs})
		}
	case raw == "/v1/host/workspace/events":
		if p, ok := s.auth(w, r, "GET"); ok {
			s.events(w, r, p)
		}
	case raw == "/v1/host/runs":
		if p, ok := s.auth(w, r, "POST"); ok {
			s.startRun(w, r, p)
		}
	default:
		writeError(w, apiError(http.StatusNotFound, "not_found", "no endpoint %s: see /v1/openapi.json for the API", clip(raw, 200)))
	}
}

func unescape(w http.ResponseWriter, raw string) (string, bool) {
	p, err := url.PathUnescape(raw)
	if err != nil {
		writeError(w, badPath(raw))
		return "", false
	}
	return p, true
}

func (s *Server) method(w http.ResponseWriter, r *http.Request, allowed ...string) bool {
	for _, m := range allowed {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	writeError(w, apiError(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed here: use %s", clip(r.Method, 20), strings.Join(allowed, " or ")))
	return false
}

// auth checks the method, then the bearer token (WCT-1: no token, no
// data, whatever else the request says).
func (s *Server) auth(w http.ResponseWriter, r *http.Request, allowed ...string) (Principal, bool) {
	if !s.method(w, r, allowed...) {
		return Principal{}, false
	}
	p, err := s.db.Authenticate(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="aw"`)
		writeError(w, err)
		return Principal{}, false
	}
	return p, true
}

// query reads the allowed query parameters; any other is refused, so a
// misspelled ?snapshot never silently reads the head.
func query(r *http.Request, allowed ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, apiError(http.StatusBadRequest, "invalid_request", "the query string is malformed: %v", err)
	}
	for k, v := range q {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			return nil, apiError(http.StatusBadRequest, "invalid_request", "unknown query parameter %q: this endpoint takes %s", clip(k, 50), strings.Join(allowed, ", "))
		}
		if len(v) > 1 {
			return nil, apiError(http.StatusBadRequest, "invalid_request", "query parameter %q is given %d times", k, len(v))
		}
	}
	return q, nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, p Principal) {
	q, err := query(r, "prefix", "snapshot")
	if err != nil {
		writeError(w, err)
		return
	}
	files, err := s.store.List(r.Context(), p, q.Get("prefix"), q.Get("snapshot"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"files": files})
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, p Principal, path string) {
	q, err := query(r, "version", "snapshot")
	if err != nil {
		writeError(w, err)
		return
	}
	var version int64
	if v := q.Get("version"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			writeError(w, apiError(http.StatusBadRequest, "invalid_request", "version %q is not a positive integer", clip(v, 30)))
			return
		}
		version = n
	}
	if version > 0 && q.Get("snapshot") != "" {
		writeError(w, apiError(http.StatusBadRequest, "invalid_request", "give version or snapshot, not both"))
		return
	}
	f, err := s.store.Get(r.Context(), p, path, version, q.Get("snapshot"))
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("ETag", f.ETag)
	writeJSON(w, http.StatusOK, f)
}

// putBody is workspace-file-create: the content and, optionally, its type.
type putBody struct {
	Content     *string `json:"content"`
	ContentType string  `json:"contentType"`
}

func (s *Server) put(w http.ResponseWriter, r *http.Request, p Principal, path string) {
	if _, err := query(r); err != nil {
		writeError(w, err)
		return
	}
	// JSON escapes a byte as at most six; the limit after decoding is
	// maxFileBytes, checked by the store.
	limit := int64(s.limits.MaxFileBytes)*6 + 64<<10
	// A body trickling in holds a connection: a minute is plenty for the
	// largest one. (Not a server-wide ReadTimeout: it would end streams.)
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(time.Minute))
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, apiError(http.StatusRequestEntityTooLarge, "workspace_too_large", "the request body is over %d bytes: this host's maxFileBytes is %d", limit, s.limits.MaxFileBytes).with("maxFileBytes", s.limits.MaxFileBytes))
		return
	}
	if err != nil {
		writeError(w, apiError(http.StatusBadRequest, "invalid_request", "cannot read the request body: %v", err))
		return
	}
	var body putBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || dec.More() {
		why := "trailing data after the object"
		if err != nil {
			why = strings.TrimPrefix(err.Error(), "json: ")
		}
		writeError(w, apiError(http.StatusBadRequest, "invalid_request", `the body must be one JSON object {"content": "...", "contentType": "text/markdown"}: %s`, clip(why, 200)))
		return
	}
	if body.Content == nil {
		writeError(w, apiError(http.StatusBadRequest, "invalid_request", `the body has no "content": send {"content": "..."}`))
		return
	}
	f, ids, err := s.store.Put(r.Context(), p, path, *body.Content, body.ContentType, r.Header.Get("If-Match"), r.Header.Get("If-None-Match"))
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("ETag", f.ETag)
	if len(ids) > 0 {
		w.Header().Set("Workspace-Redactions", strings.Join(ids, ", "))
	}
	writeJSON(w, http.StatusOK, f)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, p Principal, path string) {
	if _, err := query(r); err != nil {
		writeError(w, err)
		return
	}
	v, err := s.store.Delete(r.Context(), p, path, r.Header.Get("If-Match"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"path": path, "version": v, "deleted": true})
}

func (s *Server) startRun(w http.ResponseWriter, r *http.Request, p Principal) {
	var body struct {
		ParentRunID string `json:"parentRunId"`
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		writeError(w, apiError(http.StatusBadRequest, "invalid_request", "cannot read the request body: %v", err))
		return
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil || dec.More() {
			writeError(w, apiError(http.StatusBadRequest, "invalid_request", `the body must be empty or {"parentRunId": "run_..."}`))
			return
		}
	}
	run, err := s.store.StartRun(r.Context(), p, body.ParentRunID)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, run)
}

// events streams workspace.updated as Server-Sent Events, from after
// Last-Event-ID (or ?after=N) on, ordered by the workspace's seq.
func (s *Server) events(w http.ResponseWriter, r *http.Request, p Principal) {
	q, err := query(r, "after")
	if err != nil {
		writeError(w, err)
		return
	}
	from := r.Header.Get("Last-Event-ID")
	if from == "" {
		from = q.Get("after")
	}
	// Without either, the stream starts now: only later writes.
	var last int64
	if from == "" {
		seq, err := s.store.CurrentSeq(r.Context(), p)
		if err != nil {
			writeError(w, err)
			return
		}
		last = seq
	} else {
		n, err := strconv.ParseInt(strings.TrimSpace(from), 10, 64)
		if err != nil || n < 0 {
			writeError(w, apiError(http.StatusBadRequest, "invalid_request", "Last-Event-ID %q is not an event id this host sent", clip(from, 30)))
			return
		}
		last = n
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, apiError(http.StatusInternalServerError, "internal", "this connection cannot stream"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	flusher.Flush()
	ctx := r.Context()
	first := true
	heartbeat := time.NewTicker(15 * time.Second)
	defer heartbeat.Stop()
	for {
		wake := s.hub.wait(p.Tenant, p.Workspace) // before reading: a write after the read still wakes us
		evs, oldest, err := s.store.Events(ctx, p, last, 500)
		if err != nil {
			return
		}
		if first && last > 0 && oldest > last+1 {
			gap, _ := json.Marshal(map[string]any{"type": "workspace.gap", "after": last, "oldest": oldest})
			fmt.Fprintf(w, "event: workspace.gap\ndata: %s\n\n", gap)
		}
		first = false
		for _, e := range evs {
			data, _ := json.Marshal(e)
			fmt.Fprintf(w, "id: %d\nevent: workspace.updated\ndata: %s\n\n", e.ID, data)
			last = e.ID
		}
		flusher.Flush()
		if len(evs) == 500 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-s.done.Done():
			return
		case <-wake:
		case <-time.After(s.Poll):
		case <-heartbeat.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError writes {code, message, details}; an error that is not an API
// error is a 500 with the store's message (the operator's own database).
func writeError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.Canceled) {
			return
		}
		e = apiError(http.StatusInternalServerError, "internal", "the store failed (%s): retry; if it persists, the server's operator should look at the database", clip(err.Error(), 300))
	}
	writeJSON(w, e.Status, e)
}
