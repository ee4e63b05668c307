package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

func TestCategory(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1", "loopback"},
		{"127.255.1.2", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"64:ff9b::7f00:1", "loopback"}, // NAT64 of 127.0.0.1
		{"64:ff9b:1::a00:1", "private"}, // local-use NAT64 of 10.0.0.1
		{"2002:7f00:1::", "loopback"},   // 6to4 of 127.0.0.1
		{"2002:c0a8:101::1", "private"}, // 6to4 of 192.168.1.1
		{"::ffff:10.1.2.3", "private"},  // IPv4-mapped private
		{"::ffff:169.254.169.254", "link-local"},
		{"10.0.0.1", "private"},
		{"172.16.5.4", "private"},
		{"172.31.255.255", "private"},
		{"192.168.0.1", "private"},
		{"100.64.0.1", "private"},
		{"fc00::1", "private"},
		{"fd12:3456::1", "private"},
		{"fec0::1", "private"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"239.1.1.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"240.0.0.1", "reserved"},
		{"192.0.2.1", "reserved"},
		{"::7f00:1", "loopback"}, // IPv4-compatible 127.0.0.1
		{"8.8.8.8", ""},
		{"93.184.215.14", ""},
		{"172.32.0.1", ""},
		{"2606:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""}, // NAT64 of 8.8.8.8: public
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := Category(a); got != tc.want {
			t.Errorf("Category(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

func TestParseHost(t *testing.T) {
	for _, tc := range []struct {
		host, want string
	}{
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"10.0.258", "10.0.1.2"},
		{"127.0.0.1.", "127.0.0.1"},
		{"[::1]", "::1"},
		{"::ffff:127.0.0.1", "::ffff:127.0.0.1"},
		{"0", "0.0.0.0"},
		{"8.8.8.8", "8.8.8.8"},
		{"example.com", ""},
		{"1.2.3.4.5", ""},
		{"256.1.1.1", ""},
		{"0x", ""},
		{"1e3", ""},
		{"4294967296", ""},
		{"localhost", ""},
	} {
		a, ok := ParseHost(tc.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tc.want {
			t.Errorf("ParseHost(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	g := Guard{}
	for _, tc := range []struct {
		raw, want string // want: "" refused, else the normalized URL
	}{
		{"http://2130706433/", ""},
		{"http://0x7f000001/", ""},
		{"http://0177.0.0.1:8080/x", ""},
		{"http://[::1]/", ""},
		{"http://[::ffff:127.0.0.1]/", ""},
		{"http://[::ffff:7f00:1]/", ""},
		{"http://0.0.0.0/", ""},
		{"http://0/", ""},
		{"http://169.254.169.254/latest/meta-data/", ""},
		{"http://[fe80::1%25eth0]/", ""},
		{"file:///etc/passwd", ""},
		{"gopher://example.com/", ""},
		{"ftp://example.com/", ""},
		{"javascript:alert(1)", ""},
		{"http:///nohost", ""},
		{"HTTPS://example.com/a?b#c", "https://example.com/a?b#c"},
		{"http://134744072:81/", "http://8.8.8.8:81/"},
		{"http://[2606:4700::1111]/", "http://[2606:4700::1111]/"},
		{"http://localhost/", "http://localhost/"}, // a name: judged when it resolves
	} {
		u, err := url.Parse(tc.raw)
		if err != nil {
			if tc.want == "" {
				continue
			}
			t.Fatalf("%s: %v", tc.raw, err)
		}
		out, err := g.CheckURL(u)
		if tc.want == "" {
			if err == nil {
				t.Errorf("CheckURL(%s) = %s, want a refusal", tc.raw, out)
			}
			continue
		}
		if err != nil {
			t.Errorf("CheckURL(%s): %v", tc.raw, err)
			continue
		}
		if out.String() != tc.want {
			t.Errorf("CheckURL(%s) = %s, want %s", tc.raw, out, tc.want)
		}
	}
	if _, err := (Guard{AllowPrivate: true}).CheckURL(mustURL(t, "http://2130706433/")); err != nil {
		t.Errorf("AllowPrivate: %v", err)
	}
	if _, err := (Guard{AllowPrivate: true}).CheckURL(mustURL(t, "file:///etc/passwd")); err == nil {
		t.Errorf("AllowPrivate must not allow file:")
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The refusal happens on the dialed (resolved) address, so a name that
// resolves to loopback is refused as surely as the literal.
func TestDialRefusesResolvedLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	client := &http.Client{Transport: Guard{}.Transport(), Timeout: 5 * time.Second}
	for _, host := range []string{"127.0.0.1", "localhost", "[::ffff:127.0.0.1]"} {
		_, err := client.Get("http://" + host + ":" + port + "/")
		var b *BlockedError
		if !errors.As(err, &b) {
			t.Errorf("GET via %s: err = %v, want a BlockedError", host, err)
			continue
		}
		if b.Category != "loopback" {
			t.Errorf("GET via %s: category %s", host, b.Category)
		}
	}
	allowed := &http.Client{Transport: Guard{AllowPrivate: true}.Transport(), Timeout: 5 * time.Second}
	resp, err := allowed.Get("http://localhost:" + port + "/")
	if err != nil {
		t.Fatalf("AllowPrivate: %v", err)
	}
	resp.Body.Close()
}

// A custom resolver answers every name with 127.0.0.1 (a DNS rebinding
// shape): the dial is refused because the check runs on what was resolved.
func TestDialRefusesNameFromCustomResolver(t *testing.T) {
	dns := fakeDNS(t, netip.MustParseAddr("127.0.0.1"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", dns)
	}}
	for _, allow := range []bool{false, true} {
		d := Guard{AllowPrivate: allow}.Dialer()
		d.Resolver = resolver
		tr := &http.Transport{DialContext: d.DialContext}
		client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
		resp, err := client.Get("http://public.example.test:" + port + "/")
		if allow {
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			resp.Body.Close()
			continue
		}
		var b *BlockedError
		if !errors.As(err, &b) || b.Addr.String() != "127.0.0.1" {
			t.Fatalf("err = %v, want a BlockedError for 127.0.0.1", err)
		}
		if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("message %q does not name the category", err)
		}
	}
}

// fakeDNS serves A queries on a loopback UDP port, answering addr for every
// name (AAAA queries get an empty answer).
func fakeDNS(t *testing.T, addr netip.Addr) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true})
			b.EnableCompression()
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			if q.Type == dnsmessage.TypeA {
				b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: addr.As4()})
			}
			out, err := b.Finish()
			if err == nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

// Allow opens named prefixes only; everything else stays refused.
func TestAllowPrefixes(t *testing.T) {
	g := Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("127.0.0.2/32")}}
	for addr, want := range map[string]bool{"10.1.2.3": true, "::ffff:10.1.2.3": true, "127.0.0.2": true, "10.2.0.1": false, "127.0.0.1": false, "::1": false, "8.8.8.8": true} {
		if got := g.Check("", netip.MustParseAddr(addr)) == nil; got != want {
			t.Errorf("Check(%s) allowed = %v, want %v", addr, got, want)
		}
	}
}
