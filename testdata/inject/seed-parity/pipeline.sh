#!/usr/bin/env bash
# The per-app shell pipeline that krender's inject stage replaces, with the
# bugs it had fixed so that its output is the reference for krender's
# `mode: append`:
#   - the fragment is read from a file, not /dev/stdin (which only the first
#     match of an expression gets; later ones load null);
#   - the container is chosen by name, not as containers[0];
#   - only documents selected like the profile's `where` are changed, so the
#     Service in a multi-document file is not given a pod template.
# Usage: pipeline.sh TEMPLATE_DIR FRAGMENT. yq comes from $YQ, envsubst from $ENVSUBST; SHELL_FORMAT
# lists the deploy-time variables for envsubst, whose values, the fragment's
# values and EFS_ZONE_EXCLUDE_APPS come from the environment.
set -euo pipefail
yq=${YQ:-yq}
envsubst=${ENVSUBST:-envsubst}
templates=$1 fragment=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sed -e "s/__EFS_HOSTNAME__/${EFS_HOSTNAME}/g" -e "s/__EFS_IP_2A__/${EFS_IP_2A}/g" \
    -e "s/__EFS_IP_2C__/${EFS_IP_2C}/g" -e "s/__ZONE_BOUNDARY__/${ZONE_BOUNDARY}/g" \
    "$fragment" > "$work/fragment.yaml"

selected='select(.spec.template.spec.containers[].name == "app")'
first=1
find "$templates" -name '*.yaml' ! -path '*/common/*' | LC_ALL=C sort | while read -r file; do
  app=$(basename "$(dirname "$file")")
  "$envsubst" "$SHELL_FORMAT" < "$file" > "$work/app.yaml"
  case " $EFS_ZONE_EXCLUDE_APPS " in
    *" $app "*) ;;
    *)
      "$yq" eval "del($selected | .spec.template.spec.hostAliases)" -i "$work/app.yaml"
      "$yq" eval "($selected | .spec.template.spec.containers[] | select(.name == \"app\")) += load(\"$work/fragment.yaml\")" -i "$work/app.yaml"
      ;;
  esac
  [ "$first" = 1 ] || echo ---
  first=0
  cat "$work/app.yaml"
done
