package research

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/netguard"
)

// Fetch limits. The read cap bounds memory: the body is streamed into the
// parser (or the text), never held twice, and reading stops at the cap.
const (
	MaxBodyBytes    = 20 << 20
	MaxRedirects    = 5
	DefaultTimeout  = 30 * time.Second
	MaxTimeout      = 120 * time.Second
	userAgent       = "aw-research/1 (+https://github.com/agentic-workspace/aw)"
	acceptHeader    = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5"
	maxURLLength    = 8192
	sniffBytes      = 512
	charsetPeekSize = 64 << 10
)

// Fetcher fetches one URL and extracts its text. The guard is checked on
// the address of every connection, so every redirect hop is checked too.
type Fetcher struct {
	Guard        netguard.Guard
	MaxBytes     int64
	MaxRedirects int
	Timeout      time.Duration // whole fetch: connect, headers and body
}

// Fetched is one fetched document.
type Fetched struct {
	URL           string
	FinalURL      string
	Status        int
	ContentType   string // the media type, without parameters
	Charset       string
	Title         string
	Text          string
	Links         []Link
	Redirects     []string // every URL redirected to, in order
	Bytes         int64    // body bytes read
	BodyTruncated bool     // the body was longer than the read cap
	Duration      time.Duration
}

// isHTML says a media type is parsed as HTML; isText that it is kept as text.
func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

func isText(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "application/javascript",
		"application/ecmascript", "application/x-yaml", "application/yaml", "application/toml",
		"application/x-ndjson", "application/ld+json", "application/rss+xml", "application/atom+xml",
		"application/x-sh", "application/sql", "application/graphql", "application/x-www-form-urlencoded":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// ParseURL validates a URL an agent asked for: http or https, a host, no
// address the guard refuses (in any numeric spelling).
func (f *Fetcher) ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "url is required: pass an http or https URL")
	}
	if len(raw) > maxURLLength {
		return nil, envelope.Errorf(envelope.InvalidInput, "the URL is %d bytes; at most %d", len(raw), maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "%q is not a URL (%v): pass an absolute http or https URL", raw, unwrapURLError(err))
	}
	if u.Scheme == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "%q has no scheme: pass an absolute URL such as https://%s", raw, raw).With("url", raw)
	}
	if u.User != nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "%s carries credentials; fetch refuses URLs with a user or password", u.Redacted()).With("url", u.Redacted())
	}
	out, err := f.Guard.CheckURL(u)
	if err != nil {
		return nil, f.refusal(u.Redacted(), err)
	}
	return out, nil
}

// refusal turns a guard error into an envelope error.
func (f *Fetcher) refusal(where string, err error) error {
	var se *netguard.SchemeError
	if errors.As(err, &se) {
		return envelope.Errorf(envelope.InvalidInput, "%s: %s; file, ftp, gopher and other schemes are never fetched", where, se.Error()).
			With("url", where).With("reason", "scheme")
	}
	var be *netguard.BlockedError
	if errors.As(err, &be) {
		return envelope.Errorf(envelope.NetworkError, "%s refused: %s. This guards against requests to this machine and its private network (SSRF); only a human can allow them, with `aw config set research.allowPrivateNetwork true`", where, be.Error()).
			With("url", where).With("reason", "private-address").With("address", be.Addr.String()).With("category", be.Category).With("setting", "research.allowPrivateNetwork")
	}
	return envelope.Errorf(envelope.InvalidInput, "%s: %v", where, err).With("url", where)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// client builds the HTTP client of one fetch: the guarded dialer, no
// environment proxy, a redirect limit with every hop's scheme and literal
// address checked (its resolved address is checked when it is dialed).
func (f *Fetcher) client(hops *[]string) *http.Client {
	tr := f.Guard.Transport() // its dialer refuses blocked addresses, 10 s connect timeout
	tr.MaxResponseHeaderBytes = 1 << 20
	max := f.MaxRedirects
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > max {
				return &redirectError{n: max}
			}
			*hops = append(*hops, req.URL.Redacted())
			u, err := f.Guard.CheckURL(req.URL)
			if err != nil {
				return err
			}
			req.URL = u
			req.Host = ""
			return nil
		},
	}
}

type redirectError struct{ n int }

func (e *redirectError) Error() string { return fmt.Sprintf("stopped after %d redirects", e.n) }

// Fetch GETs u and extracts its title, text and links.
func (f *Fetcher) Fetch(ctx context.Context, u *url.URL) (*Fetched, error) {
	start := time.Now()
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &Fetched{URL: u.String(), Redirects: []string{}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "cannot request %s: %v", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("Accept-Language", "en;q=1, *;q=0.5")
	client := f.client(&out.Redirects)
	resp, err := client.Do(req)
	if err != nil {
		return nil, f.networkError(ctx, u, out.Redirects, timeout, err)
	}
	defer resp.Body.Close()
	out.FinalURL = resp.Request.URL.String()
	out.Status = resp.StatusCode

	body := bufio.NewReaderSize(io.LimitReader(resp.Body, f.maxBytes()+1), charsetPeekSize)
	head, _ := body.Peek(sniffBytes)
	ctype := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ctype)
	mt = strings.ToLower(mt)
	if mt == "" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(head))
		ctype = mt
	}
	out.ContentType = mt
	if resp.StatusCode >= 400 {
		return nil, f.statusError(out, resp, body, mt, ctype)
	}
	html := isHTML(mt)
	if !html && !isText(mt) {
		return nil, envelope.Errorf(envelope.InvalidInput,
			"%s is %s, a binary type: fetch extracts text from HTML, plain text and JSON only; download it another way if a human agrees", out.FinalURL, mt).
			With("url", out.FinalURL).With("contentType", mt).With("reason", "binary-content-type").With("status", resp.StatusCode)
	}
	if bytes.IndexByte(head, 0) >= 0 && !hasUTF16BOM(head) {
		return nil, envelope.Errorf(envelope.InvalidInput,
			"%s says %s but its first bytes are binary (NUL bytes): fetch extracts text only", out.FinalURL, mt).
			With("url", out.FinalURL).With("contentType", mt).With("reason", "binary-content")
	}
	peek, _ := body.Peek(charsetPeekSize)
	enc, name := decoder(peek, ctype, html)
	out.Charset = name
	counted := &countingReader{r: body}
	text := enc.NewDecoder().Reader(counted)
	base := resp.Request.URL
	if html {
		page, err := extractHTML(text, base)
		if err != nil {
			return nil, f.readError(ctx, out, timeout, err)
		}
		out.Title, out.Text, out.Links = page.Title, page.Text, page.Links
	} else {
		raw, err := io.ReadAll(text)
		if err != nil {
			return nil, f.readError(ctx, out, timeout, err)
		}
		out.Text = strings.ToValidUTF8(string(raw), "\uFFFD")
		out.Links = []Link{}
	}
	out.Bytes = counted.n
	if out.Bytes > f.maxBytes() {
		out.BodyTruncated = true
		out.Bytes = f.maxBytes()
	}
	out.Duration = time.Since(start)
	return out, nil
}

func (f *Fetcher) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return MaxBodyBytes
}

func hasUTF16BOM(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0xFE, 0xFF}) || bytes.HasPrefix(b, []byte{0xFF, 0xFE})
}

// decoder picks the text encoding: a BOM, the Content-Type charset, an
// HTML meta declaration; without any, UTF-8 when the first 64 KiB are
// valid UTF-8, else windows-1252 (the web's default).
func decoder(peek []byte, ctype string, isHTML bool) (encoding.Encoding, string) {
	first := peek
	if len(first) > 1024 {
		first = first[:1024]
	}
	declared := bytes.Contains(bytes.ToLower(first), []byte("charset")) || strings.Contains(strings.ToLower(ctype), "charset=")
	if !isHTML && !declared {
		ctype = "text/plain"
	}
	if e, name, certain := charset.DetermineEncoding(peek, ctype); certain || declared {
		if name == "utf-8" {
			return unicode.UTF8, name
		}
		return e, name
	}
	if utf8.Valid(trimPartialRune(peek)) {
		return unicode.UTF8, "utf-8"
	}
	return charmap.Windows1252, "windows-1252"
}

func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i > len(b)-4; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// networkError explains a failed request: refused address, timeout,
// redirect loop, DNS, connection.
func (f *Fetcher) networkError(ctx context.Context, u *url.URL, hops []string, timeout time.Duration, err error) error {
	where := u.Redacted()
	if len(hops) > 0 {
		where = fmt.Sprintf("%s (after redirects to %s)", where, strings.Join(hops, " -> "))
	}
	var se *netguard.SchemeError
	var be *netguard.BlockedError
	if errors.As(err, &se) || errors.As(err, &be) {
		e := f.refusal(where, err).(*envelope.Error)
		if len(hops) > 0 {
			e.With("redirects", hops)
		}
		return e
	}
	var re *redirectError
	if errors.As(err, &re) {
		return envelope.Errorf(envelope.NetworkError, "%s: %s (at most %d are followed); fetch the last URL directly if it is the page you want", u.Redacted(), re.Error(), re.n).
			With("url", u.Redacted()).With("reason", "redirects").With("redirects", hops)
	}
	if ctx.Err() == context.DeadlineExceeded || isTimeout(err) {
		return envelope.Errorf(envelope.Timeout, "%s did not answer within %s; retry later or pass a longer timeout_seconds (at most %d)", where, timeout, int(MaxTimeout/time.Second)).
			With("url", u.Redacted()).With("timeoutSeconds", timeout.Seconds())
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return envelope.Errorf(envelope.NetworkError, "cannot resolve %s (%s): check the host name", dnsErr.Name, dnsErr.Err).
			With("url", u.Redacted()).With("reason", "dns")
	}
	return envelope.Errorf(envelope.NetworkError, "cannot fetch %s: %v; check the URL and the network, then retry", where, unwrapURLError(err)).
		With("url", u.Redacted()).With("reason", "connection")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
}

func (f *Fetcher) readError(ctx context.Context, out *Fetched, timeout time.Duration, err error) error {
	if ctx.Err() == context.DeadlineExceeded || isTimeout(err) {
		return envelope.Errorf(envelope.Timeout, "%s sent its headers but not its whole body within %s; retry later or pass a longer timeout_seconds", out.FinalURL, timeout).
			With("url", out.FinalURL).With("status", out.Status)
	}
	return envelope.Errorf(envelope.NetworkError, "reading %s failed: %v; retry", out.FinalURL, err).With("url", out.FinalURL).With("reason", "read")
}

// statusError reports an HTTP error status with what the error page says
// (its title and the start of its text, bounded).
func (f *Fetcher) statusError(out *Fetched, resp *http.Response, body io.Reader, mt, ctype string) error {
	e := envelope.Errorf(envelope.NetworkError, "%s answered HTTP %s", out.FinalURL, resp.Status)
	e.With("url", out.URL).With("finalUrl", out.FinalURL).With("status", resp.StatusCode).With("reason", "http-status")
	if len(out.Redirects) > 0 {
		e.With("redirects", out.Redirects)
	}
	if isHTML(mt) || isText(mt) {
		raw, _ := io.ReadAll(io.LimitReader(body, 256<<10))
		enc, _ := decoder(raw, ctype, isHTML(mt))
		dec, _ := enc.NewDecoder().Bytes(raw)
		text := string(dec)
		if isHTML(mt) {
			if page, err := extractHTML(bytes.NewReader(dec), resp.Request.URL); err == nil {
				if page.Title != "" {
					e.With("title", page.Title)
				}
				text = page.Text
			}
		}
		if t := collapse(text); t != "" {
			e.With("text", clipRunes(t, 500))
		}
	}
	switch {
	case resp.StatusCode == 404 || resp.StatusCode == 410:
		e.Message += ": the page does not exist; check the URL or search for it"
	case resp.StatusCode == 401 || resp.StatusCode == 403:
		e.Message += ": the server refuses access; fetch cannot log in"
	case resp.StatusCode == 429:
		e.Message += ": rate limited; wait before retrying"
	case resp.StatusCode >= 500:
		e.Message += ": a server error; retry later"
	default:
		e.Message += "; check the URL"
	}
	return e
}
