package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Client speaks the API for aw host.
type Client struct {
	URL   string // base, without a trailing slash
	Token string
	HTTP  *http.Client
}

// maxResponse bounds what the client reads of one answer: a file is at
// most maxFileBytes, and JSON escapes a byte as at most six.
const maxResponse = 64 << 20

// do sends one request and decodes a JSON answer into out. An API error
// becomes an envelope error with the host's code in details.hostCode.
func (c *Client) do(ctx context.Context, method, path string, header map[string]string, body, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "cannot make a request to %s: %v", c.URL, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, envelope.Errorf(envelope.NetworkError, "cannot reach the host at %s: %v; is `aw serve` running there?", c.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, envelope.Errorf(envelope.NetworkError, "reading the host's answer: %v", err)
	}
	if resp.StatusCode >= 300 {
		return nil, clientError(resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, envelope.Errorf(envelope.NetworkError, "the host at %s answered something that is not this API (%v): is host.url right?", c.URL, err)
		}
	}
	return resp.Header, nil
}

// clientError maps the host's error to aw's codes, keeping the host's.
func clientError(status int, raw []byte) error {
	var e Error
	if json.Unmarshal(raw, &e) != nil || e.Code == "" {
		return envelope.Errorf(envelope.NetworkError, "the host answered HTTP %d without an API error body", status)
	}
	code := envelope.InvalidInput
	msg := e.Message
	switch e.Code {
	case "not_found", "snapshot_not_found":
		code = envelope.NotFound
	case "workspace_conflict":
		code = envelope.EditConflict
	case "unauthorized":
		msg = "the host refused the token: " + msg + "; the token comes from the variable host.tokenEnv names (default AW_HOST_TOKEN)"
	case "internal":
		code = envelope.Internal
	}
	out := envelope.Errorf(code, "%s", msg).With("hostCode", e.Code).With("status", status)
	for k, v := range e.Details {
		out = out.With(k, v)
	}
	return out
}

func filePath(p string) string {
	// Escape each segment, keep the slashes: the API's path is flat but
	// its names hold '/'.
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// List lists files.
func (c *Client) List(ctx context.Context, prefix, snapshot string) ([]Meta, error) {
	q := url.Values{}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	if snapshot != "" {
		q.Set("snapshot", snapshot)
	}
	path := filesPrefix
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		Files []Meta `json:"files"`
	}
	_, err := c.do(ctx, "GET", path, nil, nil, &out)
	return out.Files, err
}

// Get reads one file.
func (c *Client) Get(ctx context.Context, path string, version int64, snapshot string) (File, error) {
	q := url.Values{}
	if version > 0 {
		q.Set("version", fmt.Sprint(version))
	}
	if snapshot != "" {
		q.Set("snapshot", snapshot)
	}
	u := filesPrefix + "/" + filePath(path)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var f File
	_, err := c.do(ctx, "GET", u, nil, nil, &f)
	return f, err
}

// Put writes one file and returns it with the redacted secrets' ids.
func (c *Client) Put(ctx context.Context, path, content, contentType, ifMatch string) (File, []string, error) {
	var f File
	body := map[string]any{"content": content}
	if contentType != "" {
		body["contentType"] = contentType
	}
	h, err := c.do(ctx, "PUT", filesPrefix+"/"+filePath(path), map[string]string{"If-Match": ifMatch}, body, &f)
	if err != nil {
		return f, nil, err
	}
	var ids []string
	for _, id := range strings.Split(h.Get("Workspace-Redactions"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return f, ids, nil
}

// Delete deletes one file and returns its tombstone's version.
func (c *Client) Delete(ctx context.Context, path, ifMatch string) (int64, error) {
	var out struct {
		Version int64 `json:"version"`
	}
	_, err := c.do(ctx, "DELETE", filesPrefix+"/"+filePath(path), map[string]string{"If-Match": ifMatch}, nil, &out)
	return out.Version, err
}

// History lists a path's retained versions.
func (c *Client) History(ctx context.Context, path string) ([]Version, error) {
	var out struct {
		Versions []Version `json:"versions"`
	}
	_, err := c.do(ctx, "GET", historyPrefix+filePath(path), nil, nil, &out)
	return out.Versions, err
}

// Watch reads workspace.updated events (after the given id, or from now
// when after is nil) until count arrived or wait passed.
func (c *Client) Watch(ctx context.Context, after *int64, count int, wait time.Duration) ([]Event, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	u := c.URL + "/v1/host/workspace/events"
	if after != nil {
		u += fmt.Sprintf("?after=%d", *after)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, false, envelope.Errorf(envelope.InvalidInput, "cannot make a request to %s: %v", c.URL, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, false, envelope.Errorf(envelope.NetworkError, "cannot reach the host at %s: %v; is `aw serve` running there?", c.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, false, clientError(resp.StatusCode, raw)
	}
	events := []Event{}
	gap := false
	err = ReadSSE(resp.Body, func(typ, id, data string) bool {
		switch typ {
		case "workspace.gap":
			gap = true
		case "workspace.updated":
			var e Event
			if json.Unmarshal([]byte(data), &e) == nil {
				events = append(events, e)
			}
		}
		return len(events) < count
	})
	if err != nil && ctx.Err() == nil {
		return events, gap, envelope.Errorf(envelope.NetworkError, "the event stream broke: %v", err)
	}
	return events, gap, nil
}

// ReadSSE calls fn for each event of a text/event-stream until fn returns
// false or the stream ends.
func ReadSSE(r io.Reader, fn func(typ, id, data string) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var typ, id string
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if len(data) > 0 || typ != "" {
				if typ == "" {
					typ = "message"
				}
				if !fn(typ, id, strings.Join(data, "\n")) {
					return nil
				}
			}
			typ, data = "", nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			typ = value
		case "id":
			id = value
		case "data":
			data = append(data, value)
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
