# Sourced by a script that fy_netns.sh runs: the test hosts' names as H1,
# H2, H3 and their addresses as A1, A2, A3, in order, from FY_NETNS_HOSTS
# and FY_NETNS_ADDRS (empty for a host the run does not have). The one
# place that splits those lists, for every test that names its hosts.
IFS=, read -r H1 H2 H3 <<EOT
$FY_NETNS_HOSTS
EOT
IFS=, read -r A1 A2 A3 <<EOT
${FY_NETNS_ADDRS:-}
EOT
