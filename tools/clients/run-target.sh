#!/bin/bash
# Runs one task file of the Ansible collection's own integration tests against a netkeel server:
#   tools/clients/run-target.sh <task, e.g. device_interface> [url]
# CLIENTS (default /work/.clients) is where ../shared/clients/setup.sh installed the clients; the
# server must have the token below (SUPERUSER_NAME=admin SUPERUSER_API_TOKEN=0123...4567) and the
# collection's objects (tools/clients/populate.py). Prints the play recap; the log is /tmp/pb-<task>.log.
CLIENTS=${CLIENTS:-/work/.clients}
T=$CLIENTS/collections/ansible_collections/networktocode/nautobot/tests/integration/targets/latest/tasks
url=${2:-http://127.0.0.1:8080}
cat > /tmp/pb-$1.yml <<EOT
- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    nautobot_url: $url
    nautobot_token: 0123456789abcdef0123456789abcdef01234567
  tasks:
    - set_fact:
        active: "{{ lookup('networktocode.nautobot.lookup', 'statuses', api_endpoint=nautobot_url, token=nautobot_token, api_filter='name=Active') }}"
        nautobot_status: "{{ lookup('networktocode.nautobot.lookup', 'nautobot_status', api_endpoint=nautobot_url, token=nautobot_token) }}"
    - include_tasks: $T/$1.yml
EOT
ANSIBLE_COLLECTIONS_PATH=$CLIENTS/collections PYTHONPATH=$CLIENTS/pynautobot ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_DEPRECATION_WARNINGS=false \
  ansible-playbook -i localhost, /tmp/pb-$1.yml 2>&1 | grep -v "^\[WARNING\]: Collection" > /tmp/pb-$1.log
grep -E "ok=" /tmp/pb-$1.log | sed "s/^/$1: /"
