# shellcheck shell=sh
# Sourced by test scripts: the configuration of a private dbus-daemon, so that
# no test touches the machine's session or system bus.
#
# private_bus_config SOCKET [system [POLICY_FILE]]: prints a configuration
# listening on unix:path=SOCKET. By default everything is allowed (and
# eavesdropping, for busctl monitor). With "system" method calls are denied
# by default, as on the system bus, and POLICY_FILE (a daemon's D-Bus policy
# from packaging/) is included to open what it grants.
private_bus_config() {
	_pbc_socket=$1
	if [ "${2:-}" = system ]; then
		_pbc_policy='<allow user="*"/>
	    <deny send_type="method_call"/>
	    <allow send_type="signal"/>
	    <allow send_requested_reply="true" send_type="method_return"/>
	    <allow send_requested_reply="true" send_type="error"/>
	    <allow receive_type="method_call"/>
	    <allow receive_type="method_return"/>
	    <allow receive_type="error"/>
	    <allow receive_type="signal"/>
	    <allow send_destination="org.freedesktop.DBus"/>
	    <deny own="*"/>'
		_pbc_include="<include>${3:?policy file}</include>"
	else
		_pbc_policy='<allow user="*"/>
	    <allow own="*"/>
	    <allow send_destination="*" eavesdrop="true"/>
	    <allow receive_sender="*"/>'
		_pbc_include=""
	fi
	cat <<-CONF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
	  <type>custom</type>
	  <listen>unix:path=$_pbc_socket</listen>
	  <auth>EXTERNAL</auth>
	  <policy context="default">
	    $_pbc_policy
	  </policy>
	  $_pbc_include
	</busconfig>
	CONF
}
