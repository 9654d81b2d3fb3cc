package relay

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

func TestDialledAddressRules(t *testing.T) {
	tests := []struct {
		address   string
		privateOK bool
		want      string // "" allowed, else the refused class's message start
	}{
		{"127.0.0.1:11434", false, ""},
		{"127.8.9.10:80", false, ""},
		{"[::1]:1234", false, ""},
		{"[::ffff:127.0.0.1]:80", false, ""},
		{"93.184.215.14:443", false, ""},
		{"[2606:4700::1111]:443", false, ""},
		{"169.254.169.254:80", false, "169.254.169.254 is a link-local (cloud metadata) address"},
		{"169.254.169.254:80", true, "169.254.169.254 is a link-local (cloud metadata) address"},
		{"169.254.170.2:80", true, "169.254.170.2 is a link-local (cloud metadata) address"},
		{"[::ffff:169.254.169.254]:80", true, "::ffff:169.254.169.254 is a link-local (cloud metadata) address"},
		{"[::169.254.169.254]:80", true, "::a9fe:a9fe is a link-local (cloud metadata) address"},
		{"[64:ff9b::169.254.169.254]:80", true, "64:ff9b::a9fe:a9fe is a link-local (cloud metadata) address"},
		{"[fe80::1]:80", true, "fe80::1 is a link-local (cloud metadata) address"},
		{"[fe80::1%eth0]:80", true, "fe80::1%eth0 is a link-local (cloud metadata) address"},
		{"[febf::1]:80", true, "febf::1 is a link-local (cloud metadata) address"},
		{"[fd00:ec2::254]:80", true, "fd00:ec2::254 is a cloud metadata service address"},
		{"100.100.100.200:80", true, "100.100.100.200 is a cloud metadata service address"},
		{"192.0.0.192:80", true, "192.0.0.192 is a cloud metadata service address"},
		{"0.0.0.0:80", true, "0.0.0.0 is an unspecified address"},
		{"0.1.2.3:80", true, "0.1.2.3 is an unspecified address"},
		{"[::]:80", true, ":: is an unspecified address"},
		{"[::ffff:0.0.0.0]:80", true, "::ffff:0.0.0.0 is an unspecified address"},
		{"224.0.0.1:80", true, "224.0.0.1 is a multicast or broadcast address"},
		{"255.255.255.255:80", true, "255.255.255.255 is a multicast or broadcast address"},
		{"[ff02::1]:80", true, "ff02::1 is a multicast or broadcast address"},
		{"10.1.2.3:80", false, "10.1.2.3 is a private-network address; list this base URL in relay.allow"},
		{"172.16.0.1:80", false, "172.16.0.1 is a private-network address"},
		{"172.31.255.255:80", false, "172.31.255.255 is a private-network address"},
		{"192.168.1.5:8000", false, "192.168.1.5 is a private-network address"},
		{"100.64.0.1:80", false, "100.64.0.1 is a private-network address"},
		{"[fd12:3456::1]:80", false, "fd12:3456::1 is a private-network address"},
		{"[fec0::1]:80", false, "fec0::1 is a private-network address"},
		{"[::ffff:10.1.2.3]:80", false, "::ffff:10.1.2.3 is a private-network address"},
		{"[64:ff9b::10.1.2.3]:80", false, "64:ff9b::a01:203 is a private-network address"},
		{"10.1.2.3:80", true, ""},
		{"192.168.1.5:8000", true, ""},
		{"[fd12:3456::1]:80", true, ""},
		{"172.32.0.1:80", false, ""},
		{"not-an-address:80", true, "cannot judge the address"},
	}
	type result struct {
		Address   string
		PrivateOK bool
		Refusal   string
	}
	var want, got []result
	for _, tt := range tests {
		want = append(want, result{tt.address, tt.privateOK, tt.want})
		r := result{tt.address, tt.privateOK, ""}
		if err := checkDialled(tt.address, tt.privateOK); err != nil {
			r.Refusal = err.Error()
			if tt.want != "" && strings.HasPrefix(r.Refusal, tt.want) {
				r.Refusal = tt.want
			}
		}
		got = append(got, r)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("checkDialled (-want +got):\n%s", d)
	}
}

// The relay must judge the address it connects to, not the URL's host: a
// name may resolve anywhere. withHosts makes a name resolve to a chosen
// address; the connection is still checked where it is dialled.
func TestRefusesAddressesWhereverTheNameResolves(t *testing.T) {
	srv := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached") })
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	hosts := map[string]string{
		"metadata.test": "169.254.169.254", "mapped.test": "::ffff:169.254.169.254", "aws6.test": "fd00:ec2::254",
		"alibaba.test": "100.100.100.200", "lan.test": "10.1.2.3", "zero.test": "0.0.0.0", "group.test": "224.0.0.1",
		"model.test": "127.0.0.1",
	}
	tests := []struct {
		name  string
		allow []string
		url   string
		want  outcome
		words string // in the error message
	}{
		{"a name resolving to the metadata address", nil, "http://metadata.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "169.254.169.254 is a link-local (cloud metadata) address"},
		{"the metadata address even when its origin is listed", []string{"http://metadata.test:" + port + "/latest"}, "http://metadata.test:" + port + "/latest/meta-data",
			outcome{Code: wire.CodeForbidden}, "169.254.169.254 is a link-local"},
		{"the metadata address as IPv4-mapped IPv6", nil, "http://mapped.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "169.254.169.254 is a link-local"},
		{"the metadata address written in the URL", nil, "http://169.254.169.254:" + port + "/latest/v1/models",
			outcome{Code: wire.CodeForbidden}, "169.254.169.254 is a link-local"},
		{"an IPv6 link-local address in the URL", nil, "http://[fe80::1%25lo]:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "fe80::1%lo is a link-local"},
		{"AWS's IPv6 metadata address, listed", []string{"http://aws6.test:" + port + "/v1"}, "http://aws6.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "fd00:ec2::254 is a cloud metadata service address"},
		{"Alibaba's metadata address, listed", []string{"http://alibaba.test:" + port + "/v1"}, "http://alibaba.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "100.100.100.200 is a cloud metadata service address"},
		{"a private address without relay.allow", nil, "http://lan.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "10.1.2.3 is a private-network address; list this base URL in relay.allow"},
		{"the unspecified address, which Linux connects to loopback", nil, "http://zero.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "0.0.0.0 is an unspecified address"},
		{"0.0.0.0 in the URL", nil, "http://0.0.0.0:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "0.0.0.0 is an unspecified address"},
		{"a multicast address", nil, "http://group.test:" + port + "/v1/models",
			outcome{Code: wire.CodeForbidden}, "224.0.0.1 is a multicast or broadcast address"},
		{"a name resolving to loopback is a local model server", nil, "http://model.test:" + port + "/v1/models",
			outcome{Status: 200}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.received())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			res, err := New(Config{Allow: tt.allow}, withHosts(hosts)).fetch(ctx, json.RawMessage(`1`),
				params(t, Request{URL: tt.url, Method: "GET", Headers: map[string]string{"Authorization": "Bearer k"}}), nopEmit)
			got := outcomeOf(res, err)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("outcome (-want +got):\n%s\n(err %v)", d, err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.words) {
				t.Errorf("message %q does not say %q", err, tt.words)
			}
			if reached := len(srv.received()) - before; tt.want.Status == 0 && reached != 0 {
				t.Errorf("the local server was reached %d times", reached)
			}
		})
	}
}

// privateInterfaceAddr returns an address of this machine on a private
// network, to run a real server behind one.
func privateInterfaceAddr(t *testing.T) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("cannot list interface addresses: %v", err)
	}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err == nil && classify(p.Addr()) == private {
			return p.Addr()
		}
	}
	t.Skip("this machine has no private-network address to listen on")
	return netip.Addr{}
}

func TestPrivateAddressesNeedTheirOriginListed(t *testing.T) {
	addr := privateInterfaceAddr(t)
	l, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	var srv upstream
	srv.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.mu.Lock()
		srv.hits = append(srv.hits, hit{Method: r.Method, Path: r.URL.Path})
		srv.mu.Unlock()
		io.WriteString(w, "lan model")
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	hosts := map[string]string{"gpu.test": addr.String()}
	byName := "http://gpu.test:" + port
	tests := []struct {
		name     string
		allow    []string
		url      string
		want     outcome
		wantHits []hit
	}{
		{"refused without relay.allow", nil, srv.URL + "/v1/models", outcome{Code: wire.CodeForbidden}, nil},
		{"refused by name without relay.allow", nil, byName + "/v1/models", outcome{Code: wire.CodeForbidden}, nil},
		{"allowed when its base URL is listed", []string{srv.URL + "/v1"}, srv.URL + "/v1/models", outcome{Status: 200},
			[]hit{{Method: "GET", Path: "/v1/models"}}},
		{"allowed by name when that name is listed", []string{byName + "/v1"}, byName + "/v1/models", outcome{Status: 200},
			[]hit{{Method: "GET", Path: "/v1/models"}}},
		{"refused when only another origin is listed", []string{"http://127.0.0.1:11434/v1", byName + "/v1"}, srv.URL + "/v1/models",
			outcome{Code: wire.CodeForbidden}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.mu.Lock()
			srv.hits = nil
			srv.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := New(Config{Allow: tt.allow}, withHosts(hosts)).fetch(ctx, json.RawMessage(`1`),
				params(t, Request{URL: tt.url, Method: "GET"}), nopEmit)
			got := outcomeOf(res, err)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("outcome (-want +got):\n%s\n(err %v)", d, err)
			}
			if d := cmp.Diff(tt.wantHits, srv.received()); d != "" {
				t.Errorf("server received (-want +got):\n%s", d)
			}
		})
	}
}
