"""Names `make deadcode` (vulture) must not report, each with the reason nothing in the apps calls
it by name. Framework families are in pyproject.toml's [tool.vulture] ignore_names. Read by
vulture only; never imported or run."""

from types import SimpleNamespace

_ = SimpleNamespace()

# Named by dotted path in config/settings.py (excluded from the scan):
_.DatabaseUnavailableMiddleware  # MIDDLEWARE
_.PageGZipMiddleware  # MIDDLEWARE
_.RefuseNulMiddleware  # MIDDLEWARE
_.DropshipAutoSchema  # REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS
_.authenticate_credentials  # DRF's TokenAuthentication hook (config.authentication, DEFAULT_AUTHENTICATION_CLASSES)
_.StaticStorage  # STORAGES staticfiles backend
_.RoomChannelManager  # EVENTSTREAM_CHANNELMANAGER_CLASS
_.can_read_channel  # django-eventstream's channel manager hook
_.is_channel_reliable  # django-eventstream's channel manager hook
_.overflow  # django-eventstream's listener flag, set to end a stream
_.redis_client  # django-eventstream's Redis connection, replaced at start-up

# Read by DRF, drf-spectacular and Django by name:
_.get_choices  # SerializerMethodField getter
_.get_role  # SerializerMethodField getter
_.get_world  # SerializerMethodField getter
_.get_slots  # SerializerMethodField getter
_.get_members  # SerializerMethodField getter
_.get_player_name  # SerializerMethodField getter
_.player_name  # serializer field, in Meta.fields
_.marines  # serializer field (a squad member's marines), declared for the schema
_.get_steps  # SerializerMethodField getter
_.abstract  # Django model Meta option (rules.models.TransferJob)
_.campaign_job_run  # Celery task, named by dotted path in rules.jobs.Transfers(task=...)
_.squad_job_run  # Celery task, named by dotted path in rules.jobs.Transfers(task=...)
_.battle_odds_run  # Celery task, named by dotted path in battles.odds_services.ODDS_TASK
_.get_code  # SerializerMethodField getter
_.get_turn_note  # SerializerMethodField getter
_.turn_note  # serializer field, in Meta.fields
_.input_fields  # serializer field, read by DRF
_.get_crew_limit  # SerializerMethodField getter (PvP meeting)
_.get_sides  # SerializerMethodField getter (PvP meeting)
_.host_name  # PvP meeting serializer field, in Meta.fields
_.guest_name  # PvP meeting serializer field, in Meta.fields
_.referee_name  # PvP meeting serializer field, in Meta.fields (three-way referee)
_.refereeing  # PvP meeting serializer field, in Meta.fields (three-way referee)
_.get_refereeing  # SerializerMethodField getter (PvP meeting)
_.guest_turn  # PvP meeting field: the guest campaign's turn, read by the serializer
_.first_deploy  # PvP set-up typed die, read from validated data by key
_.first_player  # PvP set-up typed die, read from validated data by key
_.third_party_round  # PvP set-up typed die, read from validated data by key
_.help_text  # a form field's help, shown by the template
_.data_json  # form field, read through cleaned_data
_.file  # form field, read through request.FILES
_.is_anonymous  # the guest user stand-in's attribute, read by Django's auth checks
_.charset  # a response's charset (a property setter), read by Django for every chunk it encodes

# Called by django-eventstream's stream loop (django_eventstream.views.stream):
_.wait  # live.streams.WakeEvent: the stream awaits ensure_future(listener.aevent.wait())

# Fields of records that templates, serializers or asdict() read, never by name in Python:
_.turn_number  # Battle field (list and card)
_.main_characters  # Squad field (API)
_.joined_turn  # Trooper field (API)
_.campaign_version  # serializer field
_.table_title  # serializer field
_.resolved  # serializer field
_.last_seen  # Membership field and its serializers
_.buy  # Bug Hunt loadout input field
_.bonus_fire_in  # Bug Hunt contact result field (as_dict)
_.course_credits  # TrainingCost field (log)
_.armor_damaged  # DetailedInjury field (p.101)
_.story_points_bypass  # species rule result field
_.victory_condition  # campaign option, recorded as text
_.house_rules  # campaign option, shown on the crew sheet
_.swapped  # psionic power draw field
_.refused  # psionic result field
_.xp_spent  # psionic result field
_.has_ship  # CampaignView field
_.upfront  # LoanTerms field (set-up log, p.153)
_.edge_distance  # Fight it out set-up field (p.156)
_.hit_count  # Bug Hunt shot result, shown in the log

# Engine helpers kept as the engines' public API:
_.d3  # Dice shorthand (the mass combat engine tests use it)
_.d10  # Dice shorthand, with d3 and d12
_.d12  # Dice shorthand (the mass combat engine tests use it)
_.room_replay_matches  # replays a room's log against its state: the tracker property tests' check
