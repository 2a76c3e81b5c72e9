//! Issue 27: a scenario test per sentence of `rules/space-nomic-ruleset.txt`.
//! Each test is named after its sentence and quotes it in its doc comment; it
//! plays mail in through the inbox and reads the mail out and `state space
//! --json`. The sentences `space.rs` already covers are listed with its tests.

// Rule (paragraph, numbered from 0 as the game numbers them), sentence, test
// (`space::` for a test in `space.rs`):
//
//  0.1 The ruleset is the collection of all rules that are in effect.
//        the_ruleset_is_the_collection_of_all_rules_in_effect
//  0.2 Every player must abide by every rule in the ruleset at all times.
//        every_player_must_abide_by_every_rule_at_all_times
//  1.1 When a rule is created, it goes into effect.
//        when_a_rule_is_created_it_goes_into_effect
//  1.2 When a rule is repealed, it goes out of effect.
//        when_a_rule_is_repealed_it_goes_out_of_effect
//  1.3 When a rule is modified, it is repealed and its replacement is created.
//        when_a_rule_is_modified_it_is_repealed_and_its_replacement_created
//  1.4 NullRule may not be repealed.
//        nullrule_may_not_be_repealed, nullrule_may_not_be_modified_since_that_repeals_it
//  2   At no time may the ruleset contradict itself.
//        at_no_time_may_the_ruleset_contradict_itself
//  3.1 A player may add an entity to the game as a player.
//        a_player_may_add_an_entity_to_the_game_as_a_player
//  3.2 A player may withdraw emself from the game.
//        a_player_may_withdraw_emself_and_that_withdrawal_decides_a_proposal
//  3.3 A player may end the game provided this has the unanimous consent of all players.
//        space::a_player_may_end_the_game_with_the_unanimous_consent_of_all_players
//  4   Between the beginning and the end of the game, we say that it is during the game.
//        between_the_beginning_and_the_end_it_is_during_the_game
//  5.1 The gamestate contains exactly those things which the ruleset indicates it does.
//        the_gamestate_contains_exactly_what_the_ruleset_indicates
//  5.2 The gamestate contains the ruleset, extant proposals, all players [...] formerly players
//        the_gamestate_contains_the_ruleset_proposals_players_and_former_players
//  6.1 An action is anything that causes a change to the gamestate but is not a move.
//        an_action_is_not_a_move_so_storing_a_move_does_not_make_a_player_active
//  6.2 No actions may occur during the game except when allowed by the ruleset; [...]
//        no_actions_except_by_players_or_proposals
//  7.1 All public announcements and private messages are allowed at any time [...]
//        private_messages_are_allowed_but_cause_no_action
//  7.2 A message is a public announcement if [...] communicate it to every other player.
//        a_message_to_the_list_is_a_public_announcement
//  8.1 If a player states in a public announcement that e causes an action [...]
//        space::an_action_is_caused_only_by_a_public_announcement
//  8.2 If multiple announcements occur at the same time in one message [...]
//        space::multiple_announcements_in_one_message_occur_in_the_order_listed
//  8.3 Players may only cause actions in such ways stated by the ruleset.
//        players_may_only_cause_actions_in_ways_stated_by_the_ruleset
//  9.1 Each rule is numbered with a unique non-negative integer, and named by a unique string.
//        space::every_rule_but_nullrule_has_a_color_shown_by_rules,
//        rule_names_are_unique_a_second_rule_of_a_name_is_not_created
//  9.2 Each rule has a version number which is a non-negative integer.
//        each_rule_has_a_version_number_a_non_negative_integer
// 10.1 When a rule is modified, its replacement takes its number and name, [...] plus one.
//        when_a_rule_is_modified_it_is_repealed_and_its_replacement_created,
//        space::a_passed_change_of_a_rule_the_bot_computes_is_told_to_the_moderators
// 10.2 When a rule is otherwise created, [...] least non-negative integer [...] version number 0.
//        a_created_rule_takes_the_least_number_never_used_and_version_0
// 11.1 A player may create a proposal.
//        a_player_may_create_a_proposal
// 11.2 A proposal consists of a set of proposed changes [...] creations, modifications, and repeals
//        a_proposal_consists_of_creations_modifications_and_repeals
// 11.3 Each proposal shall be named by a unique string.
//        each_proposal_shall_be_named_by_a_unique_string
// 12   A player may destroy a proposal which e created.
//        space::a_player_may_destroy_a_proposal_which_e_created
// 13   For each proposal, a player may vote on it with a rational number in the range [-1,1] [...]
//        a_player_may_vote_with_a_rational_number_in_the_range_minus_1_to_1
// 14.1 Suppose that all active players who had not yet voted [...] were all to do so.
//        only_active_players_who_have_not_voted_are_supposed_to_vote,
//        space::a_proposal_is_decided_at_the_change_of_activity_that_decides_it,
//        space::an_accused_player_who_has_not_acted_in_7_days_becomes_inactive_and_that_can_pass_a_proposal
// 14.2 If after these votes the sum [...] could not be less than or equal to zero, [...] passed.
//        space::a_proposal_passes_at_the_vote_after_which_the_sum_could_not_be_less_than_or_equal_to_zero,
//        a_proposal_passes_at_the_exact_vote_of_minus_a_quarter,
//        a_join_keeps_a_proposal_open_that_a_vote_would_have_decided
// 14.3 Furthermore, if after these votes the sum [...] could not be greater than zero, [...] failed.
//        space::a_proposal_fails_at_the_vote_after_which_the_sum_could_not_be_greater_than_zero,
//        a_proposal_fails_at_the_exact_vote_that_makes_the_sum_unable_to_exceed_zero,
//        a_proposal_fails_at_the_instant_an_accused_non_voter_becomes_inactive
// 15   Each rule must be symmetrical with respect to the assignment of a player to a different entity.
//        each_rule_is_symmetrical_under_exchanging_players
// 16.1 Every rule but NullRule has a color.
//        space::every_rule_but_nullrule_has_a_color_shown_by_rules
// 16.2 In each proposal, each rule that is being created must be accompanied by its proposed colour [...]
//        space::each_rule_that_is_being_created_must_be_accompanied_by_its_proposed_colour_and_a_reason
// 16.3 The colour assigned to a rule is part of the gamestate.
//        the_colour_assigned_to_a_rule_is_part_of_the_gamestate
// 17   There exists as part of the gamestate a graph known as space.
//        there_exists_in_the_gamestate_a_graph_known_as_space
// 18   There exists in the gamestate a list of things that players are encouraged to do.
//        there_exists_in_the_gamestate_a_list_of_things_players_are_encouraged_to_do
// 19.1 Each player has a location that is part of the gamestate.
//        each_player_has_a_location_that_is_part_of_the_gamestate
// 19.2 When a player joins the game eir location is initially nowhere.
//        space::when_a_new_player_joins_eir_account_will_contain_97_money_units_and_eir_location_is_nowhere
// 20.1 [...] when a player's location is a vertex of Space, e may change it to an adjacent vertex.
//        from_a_vertex_a_player_may_move_only_to_an_adjacent_vertex
// 20.2 [...] when a player's location is graphwise equidistant [...] e may change eir mirror-state.
//        a_player_graphwise_equidistant_from_the_others_of_eir_mirror_state_may_change_it
// 20.3 [...] when a player's location is nowhere, e may change it to any vertex of Space.
//        from_nowhere_a_player_may_move_to_any_vertex_of_space
// 21   A space change may only be made by a player when the ruleset indicates it is legal.
//        a_space_change_the_ruleset_does_not_list_is_not_made
// 22   Any space change by a player whose location is nowhere is invalid.
//        any_space_change_by_a_player_whose_location_is_nowhere_is_invalid
// 23   Two vertices will be called graphwise adjacent when there is an edge joining them [...]
//        graphwise_adjacent_means_joined_by_an_edge_not_near
// 24.1 [...] remove the edge {X, Y}, provided that Space stays connected after this operation.
//        a_player_may_remove_an_edge_at_eir_vertex_keeping_space_connected,
//        space::space_changes_that_cannot_all_be_executed_execute_nothing
// 24.2 [...] add an edge {Y, Z}, provided that such an edge does not already exist.
//        a_player_may_add_an_edge_between_coordinatewise_adjacent_vertices
// 24.3 [...] add a new vertex A and edges {A, Y} and {A, Z}, provided that A has distinct coordinates [...]
//        a_player_may_add_a_new_vertex_with_two_edges
// 25.1 This rule has no force unless there is a rule, which provides a list of valid space changes.
//        space_changes_have_force_while_a_rule_lists_the_valid_ones
// 25.2 Any player may cause a space change, provided it is valid.
//        a_player_may_add_an_edge_between_coordinatewise_adjacent_vertices
// 25.3 The evaluation of a players space changes follow [...] with a period length of six days.
//        space_changes_are_evaluated_every_six_days
// 26.1 This rule has no force unless there is a rule, which provides a list of valid location changes.
//        location_changes_have_force_while_a_rule_lists_the_valid_ones
// 26.2 Any player may change eir location by follow the procedure [...] period length of one day.
//        from_nowhere_a_player_may_move_to_any_vertex_of_space
// 27.1 A move is a type of change to the gamestate that is conducted according to the following procedure.
// 27.2 Each type of move is associated with an absolute evaluation time that is part of the gamestate.
// 27.3 When the evaluation time for a certain type of move is reached, [...] the evaluation time advances [...]
//        each_type_of_move_has_an_evaluation_time_in_the_gamestate_that_advances
// 28   The gamestate contains a permutation phi of the set of types of moves.
//        the_types_of_moves_are_executed_in_the_order_phi
// 29   A player may set or withdraw moves of any type at any time by storing eir moves [...]
//        space::a_move_stored_privately_is_seen_by_no_other_player_before_its_evaluation,
//        a_player_may_withdraw_a_stored_move_of_either_type
// 30.1 For each type of move only the most recent move of that type announced within the current period [...]
//        only_the_most_recent_move_of_a_type_in_the_period_is_evaluated
// 30.2 At the evaluation time [...] if there is an unambiguous way to execute all moves of this type then this occurs.
//        space::location_changes_are_executed_only_if_all_of_them_can_be,
//        space::space_changes_that_cannot_all_be_executed_execute_nothing
// 31   If a new rule is created which is referring to this rule [...] 12.00 GMT the day the rule was created, plus the given interval.
//        the_first_evaluations_are_at_12_00_gmt_of_the_first_day_plus_the_interval
// 32.1 Each player has an account with an amount of money expressed as a rational number.
// 32.2 The amount of money a player has is part of the gamestate.
// 32.3 The money unit is called "money unit".
//        each_player_has_an_account_of_rational_money_units_in_the_gamestate
// 33   A player may transfer any positive rational amount of money, [...]
//        space::a_transfer_greater_than_the_account_is_refused_and_changes_nothing,
//        space::multiple_announcements_in_one_message_occur_in_the_order_listed
// 34   When a new player joins the game, eir account will contain 97 money units.
//        space::when_a_new_player_joins_eir_account_will_contain_97_money_units_and_eir_location_is_nowhere
// 35.1 To each vertex is assigned an entity called its owner; this assignment is part of the gamestate.
//        to_each_vertex_is_assigned_an_owner_in_the_gamestate
// 35.2 The owner can be a player or non-player (possibly a former player).
//        the_owner_can_be_a_former_player_and_then_the_vertex_can_be_bought
// 35.3 A player that owns a vertex can change the owner of that vertex to another player or to [...] "god".
//        a_player_may_give_a_vertex_e_owns_to_another_player_or_to_god
// 35.4 A player, that is located at a vertex owned by a non-player entity can become the owner [...] 32 [...]
//        a_player_at_a_vertex_owned_by_a_non_player_may_buy_it_for_32
// 36   A vertex that is created will initially be owned by the non-player entity "god".
//        a_player_may_add_a_new_vertex_with_two_edges
// 37   Any player may refresh any proposal. If a proposal has existed for at least 16 days [...]
//        space::a_proposal_not_refreshed_in_the_last_16_days_is_destroyed
// 38   When a proposal passes, the player who created the proposal receives 18 [...] fails [...] 6 + 1/403 [...]
//        space::a_proposal_passes_at_the_vote_after_which_the_sum_could_not_be_less_than_or_equal_to_zero,
//        space::a_proposal_fails_at_the_vote_after_which_the_sum_could_not_be_greater_than_zero
// 39   Whenever a proposal passes or fails, each player who voted on it gains 6 + 1/403 [...]
//        space::a_proposal_passes_at_the_vote_after_which_the_sum_could_not_be_less_than_or_equal_to_zero
// 40.1 Every player has a boolean activity state which is part of the gamestate.
// 40.2 We shall call a player whose activity state is true an active player.
//        every_player_has_a_boolean_activity_state_in_the_gamestate
// 41.1 Whenever a player performs an action or a move, eir activity state is set to true.
//        whenever_a_player_performs_an_action_or_a_move_e_becomes_active
// 41.2 A player may accuse any active player of inactivity.
//        a_player_may_accuse_only_an_active_player_of_inactivity
// 41.3 If a player accuses emself of inactivity, eir activity state instantly becomes false; [...] pausing.
//        a_player_who_accuses_emself_pauses,
//        space::a_proposal_is_decided_at_the_change_of_activity_that_decides_it
// 41.4 Any player who was accused of inactivity by another player 7 days ago [...]
//        space::an_accused_player_who_has_not_acted_in_7_days_becomes_inactive_and_that_can_pass_a_proposal,
//        an_accused_player_who_acted_since_stays_active
// 42   When a new player joins the game, eir activity state is true.
//        space::when_a_new_player_joins_eir_account_will_contain_97_money_units_and_eir_location_is_nowhere
// 43.1 A player may nod as an action, thereby setting eir activity state to true.
// 43.2 Nodding has no other effect on the gamestate.
//        a_player_may_nod_which_sets_eir_activity_state_true_and_nothing_else
// 44.1 Each vertex of Space has 2 integers (x, y) which are called its coordinates.
// 44.2 The coordinates of a vertex are part of the gamestate.
//        each_vertex_has_integer_coordinates_in_the_gamestate
// 44.3 Distinct vertices must have distinct coordinates.
//        a_player_may_add_a_new_vertex_with_two_edges
// 45   Two vertices of Space are considered coordinatewise adjacent if [...] at most 1.
//        coordinatewise_adjacent_means_both_differences_at_most_1
// 46   If a player has been inactive for 25 days, and e did not most recently become inactive by pausing, [...] removed
//        a_player_inactive_for_25_days_not_by_pausing_is_removed,
//        a_player_inactive_by_pausing_is_not_removed_after_25_days
// 47.1 If infinitely many vertices have players as owners, then this rule has no effect.
// 47.2 Otherwise, for each player P: Let {x_1, ..., x_n} be the set of every vertex [...] that has a player as owner.
//        only_vertices_owned_by_players_count_for_income
// 48   Each day at 21:00 GMT, each player gains from nowhere [...] the average [...]
//        space::each_day_at_21_00_gmt_each_player_gains_the_average_of_2_over_d_squared_plus_2,
//        income_of_three_players_against_a_hand_computation
// 49.1 The graphwise distance between two vertices a, b of space is the least integer n [...]
//        the_graphwise_distance_is_the_length_of_the_shortest_path_not_the_euclidean_distance
// 49.2 The graphwise distance between nowhere and any possible location of a player is considered to be infinite.
//        only_vertices_owned_by_players_count_for_income
// 50.1 The coordinatewise distance between two vertices a, b of space is defined as their Euclidean distance [...]
// 50.2 The coordinatewise distance between nowhere and any possible location of a player is considered to be infinite.
//        the_graphwise_distance_is_the_length_of_the_shortest_path_not_the_euclidean_distance
// 51.1 The point of the game is a map from the set of players to the set of positive integers.
// 51.2 The point is in the gamestate.
//        the_point_maps_each_player_to_a_positive_integer_in_the_gamestate
// 52   The expression "incrementing a player" may be used to refer to incrementing a player's image under the point.
//        incrementing_a_player_only_names_an_act
// 53.1 The game ends on 19 February 2005 just before 23:22:19 GMT.
//        the_game_ends_just_before_the_end_instant_and_refuses_everything_from_it
// 53.2 After the game has ended, the gamestate is immutable.
//        space::after_the_game_has_ended_the_gamestate_is_immutable,
//        the_game_ends_just_before_the_end_instant_and_refuses_everything_from_it
// 53.3 The date and time of day are part of the gamestate, and are equal to the minimum [...]
//        the_date_and_time_of_the_game_stop_at_the_end

use serde_json::{Value, json};

use crate::space_support::{ALICE, BOB, BOT, CAROL, LIST, Space};

const DAVE: &str = "Dave <dave@example.org>";
const DAY: i64 = 24 * 60;

/// Minutes from the start (10:00 GMT) to 12:00 GMT `days` later: an evaluation.
fn noon(days: i64) -> i64 {
    days * DAY + 120
}

/// Minutes from the start to 21:00 GMT `days` later: an income.
fn evening(days: i64) -> i64 {
    days * DAY + 660
}

fn player(space: &Space, name: &str) -> Value {
    let state = space.state();
    state["players"]
        .as_array()
        .and_then(|players| players.iter().find(|p| p["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("no player {name} in {state}"))
}

fn edges(space: &Space) -> Vec<Value> {
    space.state()["space"]["edges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn has_edge(space: &Space, a: [i64; 2], b: [i64; 2]) -> bool {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    edges(space).contains(&json!([a, b]))
}

fn vertex(space: &Space, at: [i64; 2]) -> Option<Value> {
    space.state()["space"]["vertices"]
        .as_array()
        .and_then(|vertices| vertices.iter().find(|v| v["at"] == json!(at)).cloned())
}

fn subjects(space: &Space) -> Vec<String> {
    space
        .announcements()
        .into_iter()
        .map(|m| m.subject)
        .collect()
}

/// The body of the latest announcement whose subject holds `subject`.
fn announced(space: &Space, subject: &str) -> String {
    space
        .announcements()
        .into_iter()
        .rev()
        .find(|m| m.subject.contains(subject))
        .map(|m| m.body)
        .unwrap_or_else(|| panic!("nothing announced as {subject}: {:?}", subjects(space)))
}

/// The latest answer to `address`.
fn last_answer(space: &Space, address: &str) -> String {
    space
        .bot
        .sent_mail()
        .into_iter()
        .rev()
        .find(|m| m.is_to(address) && !m.is_to(LIST))
        .map(|m| m.body)
        .unwrap_or_default()
}

/// Each `(who, vertex)` stores a move from nowhere; they are executed at the
/// first day's evaluation.
fn placed(space: &Space, places: &[(&str, &str)]) {
    for (who, at) in places {
        space.post(who, &format!("move to {at}"));
    }
    space.wait_until(noon(1));
}

fn rule_numbers(space: &Space) -> Vec<u64> {
    space.state()["rules"]
        .as_array()
        .map(|rules| rules.iter().filter_map(|r| r["number"].as_u64()).collect())
        .unwrap_or_default()
}

fn rule_named(space: &Space, name: &str) -> Option<Value> {
    space.state()["rules"]
        .as_array()
        .and_then(|rules| rules.iter().find(|r| r["name"] == name).cloned())
}

/// "The ruleset is the collection of all rules that are in effect."
#[test]
fn the_ruleset_is_the_collection_of_all_rules_in_effect() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    assert_eq!(rule_numbers(&space), (0..54).collect::<Vec<u64>>());
    space.post(ALICE, "propose Shorter: repeal 18\nvote 1 on Shorter");
    assert_eq!(rule_numbers(&space).len(), 53);
    assert!(!rule_numbers(&space).contains(&18));
    space.post(ALICE, "rules");
    let answer = last_answer(&space, "alice@example.org");
    assert!(!answer.contains("18. Space Nomic 19"), "{answer}");
    assert!(answer.contains("17. Space Nomic 18"), "{answer}");
}

/// "Every player must abide by every rule in the ruleset at all times."
/// What a rule does not allow is refused and changes nothing.
#[test]
fn every_player_must_abide_by_every_rule_at_all_times() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let before = space.state();
    space.post(ALICE, "buy");
    space.post(ALICE, "vote 1 on Nothing");
    space.post(ALICE, "give 98 to nowhere");
    let answers = space.answers_to("alice@example.org");
    assert!(answers.contains("you are located nowhere"), "{answers}");
    assert!(answers.contains("no extant proposal is called Nothing"));
    assert!(answers.contains("more than your account contains (97)"));
    assert_eq!(space.state(), before);
}

/// "When a rule is created, it goes into effect."
#[test]
fn when_a_rule_is_created_it_goes_into_effect() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(
        ALICE,
        "propose Tea: create Teatime colour green because it is calm: Tea is served at four.\nvote 1 on Tea",
    );
    let rule = rule_named(&space, "Teatime").expect("the created rule is in effect");
    assert_eq!(rule["number"], 54);
    assert_eq!(rule["text"], "Tea is served at four.");
    space.post(ALICE, "rules");
    assert!(
        last_answer(&space, "alice@example.org").contains("54. Teatime (version 0, colour green)")
    );
}

/// "When a rule is repealed, it goes out of effect."
#[test]
fn when_a_rule_is_repealed_it_goes_out_of_effect() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "propose Less: repeal Space Nomic 5\nvote 1 on Less");
    assert!(rule_named(&space, "Space Nomic 5").is_none());
    assert!(announced(&space, "Proposal Less passed").contains("rule 4"));
    // Out of effect: a later change naming it is not carried out.
    space.post(
        ALICE,
        "propose Again: modify 4: Back again.\nvote 1 on Again",
    );
    assert!(
        announced(&space, "Proposal Again passed")
            .contains("no rule in effect has that number or name")
    );
    assert!(!rule_numbers(&space).contains(&4));
}

/// "When a rule is modified, it is repealed and its replacement is created."
/// "When a rule is modified, its replacement takes its number and name, and
/// the version number which is the version number of the modified rule plus
/// one."
#[test]
fn when_a_rule_is_modified_it_is_repealed_and_its_replacement_created() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(
        ALICE,
        "propose First: modify 5: The gamestate is the state.\nvote 1 on First",
    );
    space.post(
        ALICE,
        "propose Second: modify Space Nomic 6: The gamestate is all.\nvote 1 on Second",
    );
    let rule = &space.state()["rules"][5];
    assert_eq!(rule["number"], 5);
    assert_eq!(rule["name"], "Space Nomic 6");
    assert_eq!(rule["version"], 2);
    assert_eq!(rule["text"], "The gamestate is all.");
    // The replacement keeps the colour the rule had.
    assert_eq!(rule["colour"], "uncoloured");
    assert_eq!(rule_numbers(&space).len(), 54);
}

fn with_nullrule() -> Space {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(
        ALICE,
        "propose Null: create NullRule colour grey because it must stay: Nothing happens.\nvote 1 on Null",
    );
    assert!(
        rule_named(&space, "NullRule").is_some(),
        "{}",
        space.state()
    );
    space
}

/// "NullRule may not be repealed."
#[test]
fn nullrule_may_not_be_repealed() {
    let space = with_nullrule();
    space.post(ALICE, "propose Gone: repeal NullRule\nvote 1 on Gone");
    let body = announced(&space, "Proposal Gone passed");
    assert!(body.contains("NullRule may not be repealed"), "{body}");
    assert_eq!(
        rule_named(&space, "NullRule").expect("NullRule stays")["number"],
        54
    );
    space.post(ALICE, "propose Gone2: repeal 54\nvote 1 on Gone2");
    assert!(rule_named(&space, "NullRule").is_some());
}

/// "When a rule is modified, it is repealed and its replacement is created.
/// NullRule may not be repealed." Read literally (docs/rulings.md), a
/// modification of NullRule repeals it, so it is not carried out either.
#[test]
fn nullrule_may_not_be_modified_since_that_repeals_it() {
    let space = with_nullrule();
    space.post(
        ALICE,
        "propose Change: modify NullRule: Something happens.\nvote 1 on Change",
    );
    let body = announced(&space, "Proposal Change passed");
    assert!(body.contains("NullRule may not be repealed"), "{body}");
    let rule = rule_named(&space, "NullRule").expect("NullRule stays");
    assert_eq!(rule["text"], "Nothing happens.");
    assert_eq!(rule["version"], 0);
}

/// "At no time may the ruleset contradict itself." The bot cannot read the
/// meaning of words (docs/rulings.md): the contradictions it sees are two
/// rules of one number or one name, and it never creates them.
#[test]
fn at_no_time_may_the_ruleset_contradict_itself() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(
        ALICE,
        "propose Twins: create Twin colour red because one: Red.\ncreate Twin colour blue because two: Blue.\nvote 1 on Twins",
    );
    let body = announced(&space, "Proposal Twins passed");
    assert!(body.contains("names are unique"), "{body}");
    let state = space.state();
    let rules = state["rules"].as_array().cloned().unwrap_or_default();
    assert_eq!(rules.iter().filter(|r| r["name"] == "Twin").count(), 1);
    let mut numbers = rule_numbers(&space);
    numbers.dedup();
    assert_eq!(numbers.len(), rules.len());
}

/// "Each rule is numbered with a unique non-negative integer, and named by a
/// unique string."
#[test]
fn rule_names_are_unique_a_second_rule_of_a_name_is_not_created() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(
        ALICE,
        "propose Copy: create Space Nomic 3 colour red because why not: Copied.\nvote 1 on Copy",
    );
    let body = announced(&space, "Proposal Copy passed");
    assert!(body.contains("names are unique"), "{body}");
    assert_eq!(rule_numbers(&space).len(), 54);
    assert_eq!(
        rule_named(&space, "Space Nomic 3").expect("rule 2")["number"],
        2
    );
}

/// "Each rule has a version number which is a non-negative integer."
#[test]
fn each_rule_has_a_version_number_a_non_negative_integer() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let state = space.state();
    let rules = state["rules"].as_array().cloned().unwrap_or_default();
    assert_eq!(rules.len(), 54);
    assert!(
        rules.iter().all(|r| r["version"].as_u64() == Some(0)),
        "{state}"
    );
    space.post(ALICE, "propose Up: modify 9: Numbered.\nvote 1 on Up");
    assert_eq!(space.state()["rules"][9]["version"].as_u64(), Some(1));
}

/// "When a rule is otherwise created, the new rule is numbered with the least
/// non-negative integer which has never previously been used to number a rule,
/// a new name may be specified, and it is assigned the version number 0."
#[test]
fn a_created_rule_takes_the_least_number_never_used_and_version_0() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    // Rule 53 goes; 53 was used, so the next rule is 54, not 53.
    space.post(
        ALICE,
        "propose Swap: repeal 53\ncreate colour white because unnamed: Without a name.\nvote 1 on Swap",
    );
    space.post(
        ALICE,
        "propose Next: create Named colour black because named: With a name.\nvote 1 on Next",
    );
    let numbers = rule_numbers(&space);
    assert!(!numbers.contains(&53), "{numbers:?}");
    let unnamed = rule_named(&space, "Rule 54").expect("an unnamed rule is named by its number");
    assert_eq!(unnamed["number"], 54);
    assert_eq!(unnamed["version"], 0);
    let named = rule_named(&space, "Named").expect("the name given");
    assert_eq!(named["number"], 55);
    assert_eq!(named["version"], 0);
}

/// "A player may create a proposal."
#[test]
fn a_player_may_create_a_proposal() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Idea: repeal 17");
    assert!(
        last_answer(&space, "alice@example.org").contains("Proposal Idea created, with 1 change.")
    );
    let proposal = &space.state()["proposals"][0];
    assert_eq!(proposal["name"], "Idea");
    assert_eq!(proposal["creator"], player(&space, "Alice")["id"]);
    // Only a player: an entity that is none may not.
    space.post(DAVE, "propose Other: repeal 16");
    assert!(last_answer(&space, "dave@example.org").contains("is not a player of the Space Nomic"));
    assert_eq!(space.state()["proposals"].as_array().map(Vec::len), Some(1));
}

/// "A proposal consists of a set of proposed changes to the gamestate,
/// possibly including creations, modifications, and repeals of rules."
#[test]
fn a_proposal_consists_of_creations_modifications_and_repeals() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(
        ALICE,
        "propose Mixed: create Parks colour green because trees: Every town has a park.\nmodify 10: Proposals are sets.\nrepeal 15\nvote 1 on Mixed",
    );
    assert!(
        space
            .answers_to("alice@example.org")
            .contains("Proposal Mixed created, with 3 changes.")
    );
    let body = announced(&space, "Proposal Mixed passed");
    assert!(body.contains("Parks"), "{body}");
    assert_eq!(rule_named(&space, "Parks").expect("created")["number"], 54);
    assert_eq!(space.state()["rules"][10]["text"], "Proposals are sets.");
    assert!(!rule_numbers(&space).contains(&15));
}

/// "Each proposal shall be named by a unique string."
#[test]
fn each_proposal_shall_be_named_by_a_unique_string() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Unique: repeal 17");
    space.post(BOB, "propose unique: repeal 16");
    assert!(
        last_answer(&space, "bob@example.org")
            .contains("each proposal is named by a unique string")
    );
    space.post(ALICE, "destroy Unique");
    // Unique among every proposal ever made (docs/rulings.md).
    space.post(BOB, "propose Unique: repeal 16");
    assert!(last_answer(&space, "bob@example.org").contains("has already been called Unique"));
    assert_eq!(space.state()["proposals"], json!([]));
}

/// "For each proposal, a player may vote on it with a rational number in the
/// range [-1,1], unless another rule specifies a different range."
#[test]
fn a_player_may_vote_with_a_rational_number_in_the_range_minus_1_to_1() {
    let space = Space::three_players();
    space.post(DAVE, "join Dave");
    space.post(ALICE, "propose Range: repeal 17");
    space.post(ALICE, "vote 3/2 on Range");
    space.post(ALICE, "vote -1.01 on Range");
    space.post(ALICE, "vote two on Range");
    let answers = space.answers_to("alice@example.org");
    assert!(
        answers.contains("3/2 is not a rational number in the range [-1, 1]"),
        "{answers}"
    );
    assert!(answers.contains("-1.01 is not a rational number in the range [-1, 1]"));
    assert!(answers.contains("two is not a rational number"));
    assert_eq!(space.state()["proposals"][0]["votes"], json!([]));
    space.post(ALICE, "vote 2/3 on Range");
    space.post(BOB, "vote -0.25 on Range");
    space.post(CAROL, "vote -1 on Range");
    let votes = &space.state()["proposals"][0]["votes"];
    assert_eq!(votes[0][1], "2/3");
    assert_eq!(votes[1][1], "-1/4");
    assert_eq!(votes[2][1], "-1");
    // One vote each (docs/rulings.md).
    space.post(BOB, "vote 1 on Range");
    assert!(last_answer(&space, "bob@example.org").contains("already voted on Range"));
    assert_eq!(
        space.state()["proposals"][0]["votes"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

/// "If after these votes the sum of all votes on the proposal could not be
/// less than or equal to zero, then [...] we say that the proposal has
/// passed." Decided at the exact vote: 1 + 1 - 1/4 = 7/4, and Dave's -1 could
/// bring it to 3/4 only.
#[test]
fn a_proposal_passes_at_the_exact_vote_of_minus_a_quarter() {
    let space = Space::three_players();
    space.post(DAVE, "join Dave");
    space.post(ALICE, "propose Quarter: repeal 17\nvote 1 on Quarter");
    space.post(BOB, "vote 1 on Quarter");
    // 2, with Carol and Dave yet to vote: 2 - 2 = 0, not above zero.
    assert!(subjects(&space).is_empty(), "{:?}", subjects(&space));
    space.post(CAROL, "vote -0.25 on Quarter");
    assert_eq!(
        subjects(&space),
        vec!["[space] Proposal Quarter passed".to_owned()]
    );
    let body = announced(&space, "Quarter passed");
    assert!(body.contains("the sum of its votes is 1 3/4"), "{body}");
    assert!(!rule_numbers(&space).contains(&17));
}

/// "Furthermore, if after these votes the sum of all votes on the proposal
/// could not be greater than zero, then the proposal is destroyed; we then
/// say that the proposal has failed." -2/3 - 2/3 + 1/3 = -1 with Dave's 1
/// still possible: 0, not above zero.
#[test]
fn a_proposal_fails_at_the_exact_vote_that_makes_the_sum_unable_to_exceed_zero() {
    let space = Space::three_players();
    space.post(DAVE, "join Dave");
    space.post(ALICE, "propose Thirds: repeal 17\nvote -2/3 on Thirds");
    space.post(BOB, "vote -2/3 on Thirds");
    assert!(subjects(&space).is_empty());
    space.post(CAROL, "vote 1/3 on Thirds");
    assert_eq!(
        subjects(&space),
        vec!["[space] Proposal Thirds failed".to_owned()]
    );
    assert!(rule_numbers(&space).contains(&17));
    assert_eq!(space.state()["proposals"], json!([]));
}

/// "Suppose that all active players who had not yet voted on a certain
/// proposal were all to do so." An inactive player is not supposed to vote;
/// a nod makes em count again.
#[test]
fn only_active_players_who_have_not_voted_are_supposed_to_vote() {
    let space = Space::three_players();
    space.post(CAROL, "pause");
    space.post(ALICE, "propose Few: repeal 17\nvote 1/2 on Few");
    // 1/2 with Bob yet to vote (Carol is inactive): open.
    assert!(subjects(&space).is_empty());
    space.post(CAROL, "nod");
    space.post(BOB, "vote 1/4 on Few");
    // 3/4 with Carol active again and yet to vote: still open.
    assert!(subjects(&space).is_empty(), "{:?}", subjects(&space));
    assert_eq!(space.state()["proposals"][0]["name"], "Few");
    space.post(CAROL, "pause");
    // Carol's pause leaves no one to vote: 3/4 > 0, passed at that instant.
    assert_eq!(
        subjects(&space),
        vec!["[space] Proposal Few passed".to_owned()]
    );
}

/// "Suppose that all active players who had not yet voted on a certain
/// proposal were all to do so." A join adds a player who could vote, so the
/// vote that would have decided the proposal does not.
#[test]
fn a_join_keeps_a_proposal_open_that_a_vote_would_have_decided() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Open: repeal 17\nvote 1 on Open");
    space.post(CAROL, "join Carol");
    // 1 + 0 = 1 with Carol yet to vote: 1 - 1 = 0, not above zero.
    space.post(BOB, "vote 0 on Open");
    assert!(subjects(&space).is_empty(), "{:?}", subjects(&space));
    space.post(CAROL, "vote -1/2 on Open");
    assert_eq!(
        subjects(&space),
        vec!["[space] Proposal Open passed".to_owned()]
    );
}

/// "A player may withdraw emself from the game." The withdrawal is a change
/// of who is active, and decides the proposal the withdrawn player had not
/// voted on.
#[test]
fn a_player_may_withdraw_emself_and_that_withdrawal_decides_a_proposal() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Leave: repeal 17\nvote 1/2 on Leave");
    assert!(subjects(&space).is_empty());
    space.post(BOB, "withdraw");
    assert!(last_answer(&space, "bob@example.org").contains("withdraws from the Space Nomic"));
    assert_eq!(
        subjects(&space),
        vec!["[space] Proposal Leave passed".to_owned()]
    );
    let bob = player(&space, "Bob");
    assert_eq!(bob["playing"], false);
    space.post(BOB, "nod");
    assert!(last_answer(&space, "bob@example.org").contains("is not a player"));
}

/// "A player may add an entity to the game as a player."
#[test]
fn a_player_may_add_an_entity_to_the_game_as_a_player() {
    let space = Space::new();
    space.post(DAVE, "add carol@example.org as Carol");
    assert!(last_answer(&space, "dave@example.org").contains("is not a player"));
    space.post(ALICE, "join Alice");
    space.post(ALICE, "add carol@example.org as Carol");
    assert!(last_answer(&space, "alice@example.org").contains("You add Carol to the Space Nomic"));
    let carol = player(&space, "Carol");
    assert_eq!(carol["money"], "97");
    assert_eq!(carol["active"], true);
    assert_eq!(carol["location"], Value::Null);
    space.post(CAROL, "give 1 to Alice");
    assert_eq!(space.money("Alice"), "98");
}

/// "Each rule must be symmetrical with respect to the assignment of a player
/// to a different entity." The bot's mechanics name no player: the same
/// actions with the players exchanged end in the exchanged state.
#[test]
fn each_rule_is_symmetrical_under_exchanging_players() {
    let play = |first: &str, second: &str| {
        let space = Space::new();
        space.post(first, "join First");
        space.post(second, "join Second");
        space.post(first, "propose P: repeal 17\nvote 1 on P");
        space.post(second, "vote -1/3 on P");
        space.post(second, "give 1/7 to First");
        let money = |name: &str| space.money(name);
        (money("First"), money("Second"))
    };
    assert_eq!(play(ALICE, BOB), play(BOB, ALICE));
    // First: 97 + 18 + (6 + 1/403) + 1/7; Second: 97 + (6 + 1/403) - 1/7.
    assert_eq!(
        play(ALICE, BOB),
        ("341751/2821".to_owned(), "290167/2821".to_owned())
    );
}

/// "Between the beginning and the end of the game, we say that it is during
/// the game." Before the first join there is no ruleset; after the end every
/// action is refused.
#[test]
fn between_the_beginning_and_the_end_it_is_during_the_game() {
    let space = Space::new();
    space.post(ALICE, "rules");
    assert!(last_answer(&space, "alice@example.org").contains("has not begun"));
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    assert_eq!(rule_numbers(&space).len(), 54);
    space.post(ALICE, "end the game");
    space.post(BOB, "end the game");
    space.post(ALICE, "nod");
    assert!(last_answer(&space, "alice@example.org").contains("the Space Nomic ended"));
}

/// "The gamestate contains exactly those things which the ruleset indicates
/// it does."
#[test]
fn the_gamestate_contains_exactly_what_the_ruleset_indicates() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let state = space.state();
    for key in ["players", "rules", "proposals", "space", "encouraged"] {
        assert!(state.get(key).is_some(), "no {key} in {state}");
    }
    let alice = &state["players"][0];
    for key in ["money", "location", "active", "point", "mirror"] {
        assert!(alice.get(key).is_some(), "no {key} in {alice}");
    }
}

/// "The gamestate contains the ruleset, extant proposals, all players that
/// are in the game, and all entities that were formerly players in the game."
#[test]
fn the_gamestate_contains_the_ruleset_proposals_players_and_former_players() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Kept: repeal 17");
    space.post(BOB, "withdraw");
    let state = space.state();
    assert_eq!(state["rules"].as_array().map(Vec::len), Some(54));
    assert_eq!(state["proposals"][0]["name"], "Kept");
    assert_eq!(state["players"][0]["playing"], true);
    assert_eq!(state["players"][1]["name"], "Bob");
    assert_eq!(state["players"][1]["playing"], false);
}

/// "An action is anything that causes a change to the gamestate but is not a
/// move." Storing a move is no action: a paused player who stores one stays
/// inactive until the move is performed.
#[test]
fn an_action_is_not_a_move_so_storing_a_move_does_not_make_a_player_active() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "pause");
    space.post(ALICE, "move to (0, 0)");
    assert_eq!(player(&space, "Alice")["active"], false);
    space.wait_until(noon(1));
    let alice = player(&space, "Alice");
    assert_eq!(alice["location"], json!([0, 0]));
    // "Whenever a player performs an action or a move": the move, performed.
    assert_eq!(alice["active"], true);
}

/// "No actions may occur during the game except when allowed by the ruleset;
/// furthermore, all actions during the game must be caused either by players
/// or by proposals."
#[test]
fn no_actions_except_by_players_or_proposals() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(DAVE, "give 1 to Alice");
    space.post(DAVE, "propose Outsider: repeal 17");
    space.post(DAVE, "accuse Alice of inactivity");
    let answers = space.answers_to("dave@example.org");
    assert_eq!(
        answers
            .matches("is not a player of the Space Nomic")
            .count(),
        3,
        "{answers}"
    );
    assert_eq!(space.money("Alice"), "97");
    assert_eq!(space.state()["proposals"], json!([]));
    assert_eq!(space.state()["accusations"], json!([]));
}

/// "All public announcements and private messages are allowed at any time
/// during the game, but are not necessarily without consequence." A private
/// question is answered; a private action is refused and changes nothing.
#[test]
fn private_messages_are_allowed_but_cause_no_action() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.send(ALICE, BOT, "status");
    assert!(last_answer(&space, "alice@example.org").contains("Alice: 97 money units"));
    space.send(ALICE, BOT, "pause");
    assert!(
        last_answer(&space, "alice@example.org").contains("counts only when announced in public")
    );
    assert_eq!(player(&space, "Alice")["active"], true);
}

/// "A message is a public announcement if the person who produced it makes a
/// good face effort to send, post, show, or otherwise communicate it to every
/// other player." Mail to the list reaches every player: it is one.
#[test]
fn a_message_to_the_list_is_a_public_announcement() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.send(ALICE, BOT, "give 1 to Bob");
    assert_eq!(space.money("Bob"), "97");
    space.send(ALICE, LIST, "give 1 to Bob");
    assert_eq!(space.money("Bob"), "98");
}

/// "Players may only cause actions in such ways stated by the ruleset."
#[test]
fn players_may_only_cause_actions_in_ways_stated_by_the_ruleset() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    let before = space.state();
    space.post(ALICE, "take 10 from Bob");
    space.post(ALICE, "give 1 to Alice");
    assert_eq!(space.state(), before);
    assert!(last_answer(&space, "alice@example.org").contains("not to your own"));
}

/// "The colour assigned to a rule is part of the gamestate."
#[test]
fn the_colour_assigned_to_a_rule_is_part_of_the_gamestate() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    assert_eq!(space.state()["rules"][0]["colour"], "uncoloured");
    space.post(
        ALICE,
        "propose Paint: create Painted colour ochre because warm: Walls are painted.\nvote 1 on Paint",
    );
    assert_eq!(
        rule_named(&space, "Painted").expect("created")["colour"],
        "ochre"
    );
}

/// "There exists as part of the gamestate a graph known as space."
#[test]
fn there_exists_in_the_gamestate_a_graph_known_as_space() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let state = space.state();
    assert_eq!(state["space"]["vertices"].as_array().map(Vec::len), Some(4));
    assert_eq!(edges(&space).len(), 4);
    assert!(has_edge(&space, [0, 0], [1, 0]) && has_edge(&space, [0, 1], [0, 0]));
}

/// "There exists in the gamestate a list of things that players are
/// encouraged to do." The text never says how it changes: it is in the state,
/// empty (docs/rulings.md).
#[test]
fn there_exists_in_the_gamestate_a_list_of_things_players_are_encouraged_to_do() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    assert_eq!(space.state()["encouraged"], json!([]));
}

/// "Each player has a location that is part of the gamestate."
#[test]
fn each_player_has_a_location_that_is_part_of_the_gamestate() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    assert_eq!(player(&space, "Alice")["location"], Value::Null);
    placed(&space, &[(ALICE, "(0, 1)")]);
    assert_eq!(player(&space, "Alice")["location"], json!([0, 1]));
    space.post(ALICE, "status");
    assert!(last_answer(&space, "alice@example.org").contains("at (0, 1)"));
}

/// "when a player's location is a vertex of Space, e may change it to an
/// adjacent vertex."
#[test]
fn from_a_vertex_a_player_may_move_only_to_an_adjacent_vertex() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "move to (1, 1)");
    space.wait_until(noon(2));
    assert_eq!(player(&space, "Alice")["location"], json!([0, 0]));
    let body = announced(&space, "Location changes evaluated");
    assert!(body.contains("(1, 1) is not adjacent to (0, 0)"), "{body}");
    space.post(ALICE, "move to (1, 0)");
    space.wait_until(noon(3));
    assert_eq!(player(&space, "Alice")["location"], json!([1, 0]));
}

/// "when a player's location is nowhere, e may change it to any vertex of
/// Space." "Any player may change eir location by follow the procedure
/// stated in the rule PeriodicalEvaluation with a period length of one day."
#[test]
fn from_nowhere_a_player_may_move_to_any_vertex_of_space() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "move to (1, 1)");
    space.wait_until(noon(1) - 1);
    assert_eq!(player(&space, "Alice")["location"], Value::Null);
    space.wait_until(noon(1));
    assert_eq!(player(&space, "Alice")["location"], json!([1, 1]));
    // Not to a vertex Space does not have.
    space.post(BOB, "join Bob");
    space.post(BOB, "move to (2, 2)");
    space.wait_until(noon(2));
    assert_eq!(player(&space, "Bob")["location"], Value::Null);
}

/// "when a player's location is graphwise equidistant from the locations
/// (other than nowhere) of all other players with the same mirror-state, e
/// may change eir mirror-state."
#[test]
fn a_player_graphwise_equidistant_from_the_others_of_eir_mirror_state_may_change_it() {
    let space = Space::three_players();
    // Dave stays nowhere: "(other than nowhere)", he is left out.
    space.post(DAVE, "join Dave");
    placed(
        &space,
        &[(ALICE, "(0, 0)"), (BOB, "(1, 0)"), (CAROL, "(1, 1)")],
    );
    // From (0, 0): Bob at distance 1, Carol at 2.
    space.post(ALICE, "mirror");
    space.wait_until(noon(2));
    assert_eq!(player(&space, "Alice")["mirror"], false);
    let body = announced(&space, "Location changes evaluated");
    assert!(body.contains("not graphwise equidistant"), "{body}");
    space.post(CAROL, "move to (0, 1)");
    space.wait_until(noon(3));
    // Now Bob and Carol are both at distance 1.
    space.post(ALICE, "mirror");
    space.wait_until(noon(4));
    assert_eq!(player(&space, "Alice")["mirror"], true);
    // Alone in eir mirror-state, Alice is equidistant from no one else.
    space.post(ALICE, "mirror");
    space.wait_until(noon(5));
    assert_eq!(player(&space, "Alice")["mirror"], false);
}

/// "A space change may only be made by a player when the ruleset indicates it
/// is legal." A change the list of rule 24 does not hold is not made.
#[test]
fn a_space_change_the_ruleset_does_not_list_is_not_made() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    // (1, 1) is not graphwise adjacent to (0, 0): no edge {X, Y} to remove.
    space.post(ALICE, "remove edge to (1, 1)");
    space.wait_until(noon(6));
    assert_eq!(edges(&space).len(), 4);
    assert!(announced(&space, "Space changes evaluated").contains("no space change is executed"));
}

/// "Any space change by a player whose location is nowhere is invalid."
#[test]
fn any_space_change_by_a_player_whose_location_is_nowhere_is_invalid() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "add edge (0, 0) (1, 1)");
    space.wait_until(noon(6));
    assert_eq!(edges(&space).len(), 4);
    let body = announced(&space, "Space changes evaluated");
    assert!(
        body.contains("no space change is executed") && body.contains("nowhere"),
        "{body}"
    );
}

/// "Two vertices will be called graphwise adjacent when there is an edge
/// joining them in the graph Space." Coordinates one apart are not enough.
#[test]
fn graphwise_adjacent_means_joined_by_an_edge_not_near() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "remove edge to (1, 0)");
    space.wait_until(noon(6));
    assert!(!has_edge(&space, [0, 0], [1, 0]));
    space.post(ALICE, "move to (1, 0)");
    space.wait_until(noon(7));
    assert_eq!(player(&space, "Alice")["location"], json!([0, 0]));
    space.post(ALICE, "move to (0, 1)");
    space.wait_until(noon(8));
    assert_eq!(player(&space, "Alice")["location"], json!([0, 1]));
}

/// "For a vertex Y graphwise adjacent to X, e may remove the edge {X, Y},
/// provided that Space stays connected after this operation."
#[test]
fn a_player_may_remove_an_edge_at_eir_vertex_keeping_space_connected() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "remove edge to (1, 0)");
    space.wait_until(noon(6));
    assert_eq!(edges(&space).len(), 3);
    // Space is now the path (1, 0)-(1, 1)-(0, 1)-(0, 0): removing the last
    // edge at (0, 0) would cut it off.
    space.post(ALICE, "remove edge to (0, 1)");
    space.wait_until(noon(12));
    assert_eq!(edges(&space).len(), 3);
    assert!(has_edge(&space, [0, 0], [0, 1]));
    let body = announced(&space, "Space changes evaluated");
    assert!(body.contains("would disconnect Space"), "{body}");
}

/// "For distinct vertices Y and Z, both coordinatewise adjacent to X and
/// coordinatewise adjacent to each other, e may add an edge {Y, Z}, provided
/// that such an edge does not already exist." "Any player may cause a space
/// change, provided it is valid."
#[test]
fn a_player_may_add_an_edge_between_coordinatewise_adjacent_vertices() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    placed(&space, &[(ALICE, "(0, 0)"), (BOB, "(1, 1)")]);
    // The edge {(0, 0), (1, 0)} already exists.
    space.post(ALICE, "add edge (0, 0) (1, 0)");
    space.wait_until(noon(6));
    assert_eq!(edges(&space).len(), 4);
    assert!(announced(&space, "Space changes evaluated").contains("no space change is executed"));
    // The diagonal (1, 0)-(0, 1): both within 1 of (0, 0) and of each other.
    space.post(ALICE, "add edge (1, 0) (0, 1)");
    space.wait_until(noon(12));
    assert_eq!(edges(&space).len(), 5);
    assert!(has_edge(&space, [1, 0], [0, 1]));
    // Bob, at (1, 1), adds the other diagonal.
    space.post(BOB, "add edge (0, 0) (1, 1)");
    space.wait_until(noon(18));
    assert!(has_edge(&space, [0, 0], [1, 1]));
}

/// "For distinct vertices Y and Z, both coordinatewise adjacent to X, e may
/// add a new vertex A and edges {A, Y} and {A, Z}, provided that A has
/// distinct coordinates from all other vertices." "A vertex that is created
/// will initially be owned by the non-player entity "god"." "Distinct
/// vertices must have distinct coordinates."
#[test]
fn a_player_may_add_a_new_vertex_with_two_edges() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "add vertex (1, 1) joined to (1, 0) (0, 1)");
    space.wait_until(noon(6));
    assert_eq!(
        space.state()["space"]["vertices"].as_array().map(Vec::len),
        Some(4)
    );
    assert!(announced(&space, "Space changes evaluated").contains("no space change is executed"));
    space.post(ALICE, "add vertex (-1, 0) joined to (0, 0) (0, 1)");
    space.wait_until(noon(12));
    let created = vertex(&space, [-1, 0]).expect("the vertex is created");
    assert_eq!(created["owner"], "god");
    assert!(has_edge(&space, [-1, 0], [0, 0]) && has_edge(&space, [-1, 0], [0, 1]));
    assert_eq!(edges(&space).len(), 6);
}

/// "This rule has no force unless there is a rule, which provides a list of
/// valid space changes." Rule 24 provides it, so space changes are made.
#[test]
fn space_changes_have_force_while_a_rule_lists_the_valid_ones() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    assert!(
        space.state()["rules"][24]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Valid space changes"))
    );
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "remove edge to (0, 1)");
    space.wait_until(noon(6));
    assert_eq!(edges(&space).len(), 3);
}

/// "This rule has no force unless there is a rule, which provides a list of
/// valid location changes." Rule 20 provides it, so location changes are made.
#[test]
fn location_changes_have_force_while_a_rule_lists_the_valid_ones() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    assert!(
        space.state()["rules"][20]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Unless another rule prohibits"))
    );
    placed(&space, &[(ALICE, "(1, 0)")]);
    assert_eq!(player(&space, "Alice")["location"], json!([1, 0]));
}

/// "The evaluation of a players space changes follow the procedure stated in
/// the rule PeriodicalEvaluation with a period length of six days."
#[test]
fn space_changes_are_evaluated_every_six_days() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "remove edge to (1, 0)");
    space.wait_until(noon(5));
    assert_eq!(edges(&space).len(), 4);
    space.wait_until(noon(6) - 1);
    assert_eq!(edges(&space).len(), 4);
    space.wait_until(noon(6));
    assert_eq!(edges(&space).len(), 3);
}

/// "A move is a type of change to the gamestate that is conducted according
/// to the following procedure." "Each type of move is associated with an
/// absolute evaluation time that is part of the gamestate." "When the
/// evaluation time for a certain type of move is reached, the moves of this
/// type are executed, and the evaluation time advances by a value in the
/// gamestate (possibly in the ruleset)."
#[test]
fn each_type_of_move_has_an_evaluation_time_in_the_gamestate_that_advances() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let state = space.state();
    assert_eq!(state["next_evaluation"], "2026-03-03T12:00:00Z");
    assert_eq!(state["next_space_evaluation"], "2026-03-08T12:00:00Z");
    space.wait_until(noon(1));
    assert_eq!(space.state()["next_evaluation"], "2026-03-04T12:00:00Z");
    space.wait_until(noon(6));
    assert_eq!(
        space.state()["next_space_evaluation"],
        "2026-03-14T12:00:00Z"
    );
}

/// "If a new rule is created which is referring to this rule or if a rule is
/// modified to refer to this rule the evaluation time of all types of move
/// stated by that rule is 12.00 GMT the day the rule was created, plus the
/// given interval." The rules are created when the game begins, at 10:00.
#[test]
fn the_first_evaluations_are_at_12_00_gmt_of_the_first_day_plus_the_interval() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "move to (0, 0)");
    // 12:00 of the first day is no evaluation: the interval comes first.
    space.wait_until(120);
    assert_eq!(player(&space, "Alice")["location"], Value::Null);
    space.wait_until(noon(1));
    assert_eq!(player(&space, "Alice")["location"], json!([0, 0]));
}

/// "The gamestate contains a permutation phi of the set of types of moves."
/// Location changes come first by default, so a player who arrives from
/// nowhere at the evaluation both moves makes a space change there; with
/// space changes first, eir space change is made from nowhere, invalid.
#[test]
fn the_types_of_moves_are_executed_in_the_order_phi() {
    let play = |config: &str| {
        let space = Space::with_config(config);
        space.post(ALICE, "join Alice");
        space.wait_until(noon(5) + 1);
        space.post(ALICE, "move to (0, 0)");
        space.post(ALICE, "remove edge to (1, 0)");
        space.wait_until(noon(6));
        (
            player(&space, "Alice")["location"].clone(),
            edges(&space).len(),
        )
    };
    let config = crate::support::trusting();
    assert_eq!(play(config), (json!([0, 0]), 3));
    let reversed = config.replace(
        "phi = [\"location\", \"space\"]",
        "phi = [\"space\", \"location\"]",
    );
    assert_ne!(reversed, config);
    assert_eq!(play(&reversed), (json!([0, 0]), 4));
}

/// "A player may set or withdraw moves of any type at any time by storing eir
/// moves [...]": a stored move of either type may be withdrawn.
#[test]
fn a_player_may_withdraw_a_stored_move_of_either_type() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "move to (1, 0)");
    space.post(ALICE, "remove edge to (0, 1)");
    assert_eq!(space.state()["location_moves"], 1);
    assert_eq!(space.state()["space_moves"], 1);
    space.send(ALICE, BOT, "cancel move");
    space.post(ALICE, "cancel space change");
    assert_eq!(space.state()["location_moves"], 0);
    assert_eq!(space.state()["space_moves"], 0);
    space.wait_until(noon(6));
    assert_eq!(player(&space, "Alice")["location"], json!([0, 0]));
    assert_eq!(edges(&space).len(), 4);
    space.post(ALICE, "cancel move");
    assert!(last_answer(&space, "alice@example.org").contains("no location change stored"));
}

/// "For each type of move only the most recent move of that type announced
/// within the current period of that move type is evaluated for each player."
#[test]
fn only_the_most_recent_move_of_a_type_in_the_period_is_evaluated() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "move to (0, 0)");
    space.send(ALICE, BOT, "move to (1, 1)");
    assert_eq!(space.state()["location_moves"], 1);
    space.wait_until(noon(1));
    assert_eq!(player(&space, "Alice")["location"], json!([1, 1]));
    // The move is spent with its period: nothing is left for the next.
    assert_eq!(space.state()["location_moves"], 0);
    space.wait_until(noon(2));
    assert_eq!(player(&space, "Alice")["location"], json!([1, 1]));
}

/// "Each player has an account with an amount of money expressed as a
/// rational number." "The amount of money a player has is part of the
/// gamestate." "The money unit is called "money unit"."
#[test]
fn each_player_has_an_account_of_rational_money_units_in_the_gamestate() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "give 2/7 to Bob");
    assert_eq!(space.money("Alice"), "677/7");
    assert_eq!(space.money("Bob"), "681/7");
    let answer = last_answer(&space, "alice@example.org");
    assert!(
        answer.contains("2/7 money units transferred to Bob; your account now contains 96 5/7"),
        "{answer}"
    );
}

/// "To each vertex is assigned an entity called its owner; this assignment
/// is part of the gamestate."
#[test]
fn to_each_vertex_is_assigned_an_owner_in_the_gamestate() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let state = space.state();
    let vertices = state["space"]["vertices"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(vertices.iter().all(|v| v["owner"] == "god"), "{state}");
    placed(&space, &[(ALICE, "(1, 0)")]);
    space.post(ALICE, "buy");
    let id = player(&space, "Alice")["id"].clone();
    assert_eq!(
        vertex(&space, [1, 0]).expect("vertex")["owner"],
        json!({ "entity": id })
    );
    space.post(ALICE, "status");
    assert!(last_answer(&space, "alice@example.org").contains("(1, 0) (Alice)"));
}

/// "A player, that is located at a vertex owned by a non-player entity can
/// become the owner of that vertex if e transfers 32 money units to nowhere."
#[test]
fn a_player_at_a_vertex_owned_by_a_non_player_may_buy_it_for_32() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "buy");
    assert!(last_answer(&space, "alice@example.org").contains("located nowhere"));
    placed(&space, &[(ALICE, "(0, 0)"), (BOB, "(0, 0)")]);
    space.post(ALICE, "buy");
    assert_eq!(space.money("Alice"), "65");
    assert!(
        last_answer(&space, "alice@example.org")
            .contains("You now own the vertex (0, 0), for 32 money units")
    );
    // Owned by a player now: Bob may not buy it.
    space.post(BOB, "buy");
    assert!(last_answer(&space, "bob@example.org").contains("is owned by the player Alice"));
    assert_eq!(space.money("Bob"), "97");
    // Not for less than 32 in the account.
    space.post(BOB, "move to (1, 0)");
    space.wait_until(noon(2));
    // 97 and the income of 21:00 at Alice's vertex: 2/(0^2 + 2) = 1.
    assert_eq!(space.money("Bob"), "98");
    space.post(BOB, "give 66 2/3 to nowhere");
    space.post(BOB, "buy");
    assert!(
        last_answer(&space, "bob@example.org").contains("more than your account contains (31 1/3)")
    );
    assert_eq!(vertex(&space, [1, 0]).expect("vertex")["owner"], "god");
}

/// "The owner can be a player or non-player (possibly a former player)." A
/// vertex whose owner withdrew is owned by a non-player and can be bought.
#[test]
fn the_owner_can_be_a_former_player_and_then_the_vertex_can_be_bought() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    placed(&space, &[(ALICE, "(0, 0)"), (BOB, "(0, 0)")]);
    space.post(ALICE, "buy");
    let alice = player(&space, "Alice")["id"].clone();
    space.post(ALICE, "withdraw");
    assert_eq!(
        vertex(&space, [0, 0]).expect("vertex")["owner"],
        json!({ "entity": alice })
    );
    space.post(BOB, "buy");
    assert_eq!(space.money("Bob"), "65");
    let bob = player(&space, "Bob")["id"].clone();
    assert_eq!(
        vertex(&space, [0, 0]).expect("vertex")["owner"],
        json!({ "entity": bob })
    );
}

/// "A player that owns a vertex can change the owner of that vertex to
/// another player or to the non-player entity "god"."
#[test]
fn a_player_may_give_a_vertex_e_owns_to_another_player_or_to_god() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "buy");
    space.post(BOB, "give vertex (0, 0) to god");
    assert!(last_answer(&space, "bob@example.org").contains("you do not own the vertex (0, 0)"));
    space.post(ALICE, "give vertex (0, 0) to Alice");
    assert!(last_answer(&space, "alice@example.org").contains("not to your own"));
    space.post(ALICE, "give vertex (0, 0) to Bob");
    let bob = player(&space, "Bob")["id"].clone();
    assert_eq!(
        vertex(&space, [0, 0]).expect("vertex")["owner"],
        json!({ "entity": bob })
    );
    space.post(BOB, "give vertex (0, 0) to god");
    assert_eq!(vertex(&space, [0, 0]).expect("vertex")["owner"], "god");
    // Giving is no transfer: no money moved.
    assert_eq!(space.money("Alice"), "65");
    assert_eq!(space.money("Bob"), "97");
}

/// "Every player has a boolean activity state which is part of the
/// gamestate." "We shall call a player whose activity state is true an
/// active player."
#[test]
fn every_player_has_a_boolean_activity_state_in_the_gamestate() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(BOB, "pause");
    assert_eq!(player(&space, "Alice")["active"], true);
    assert_eq!(player(&space, "Bob")["active"], false);
    space.post(ALICE, "status");
    let answer = last_answer(&space, "alice@example.org");
    assert!(
        answer.contains("Alice: 97 money units, at nowhere, active"),
        "{answer}"
    );
    assert!(
        answer.contains("Bob: 97 money units, at nowhere, inactive"),
        "{answer}"
    );
}

/// "Whenever a player performs an action or a move, eir activity state is set
/// to true."
#[test]
fn whenever_a_player_performs_an_action_or_a_move_e_becomes_active() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(BOB, "pause");
    space.post(BOB, "give 1 to Alice");
    assert_eq!(player(&space, "Bob")["active"], true);
    space.post(BOB, "pause");
    space.post(BOB, "move to (0, 0)");
    assert_eq!(player(&space, "Bob")["active"], false);
    space.wait_until(noon(1));
    assert_eq!(player(&space, "Bob")["active"], true);
}

/// "A player may accuse any active player of inactivity."
#[test]
fn a_player_may_accuse_only_an_active_player_of_inactivity() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(BOB, "pause");
    space.post(ALICE, "accuse Bob of inactivity");
    assert!(last_answer(&space, "alice@example.org").contains("Bob is already inactive"));
    assert_eq!(space.state()["accusations"], json!([]));
    space.post(BOB, "nod");
    space.post(ALICE, "accuse Bob");
    assert!(last_answer(&space, "alice@example.org").contains("You accuse Bob of inactivity"));
    assert_eq!(
        space.state()["accusations"].as_array().map(Vec::len),
        Some(1)
    );
}

/// "If a player accuses emself of inactivity, eir activity state instantly
/// becomes false; accusing oneself of inactivity is also known as pausing."
#[test]
fn a_player_who_accuses_emself_pauses() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(ALICE, "accuse Alice of inactivity");
    let alice = player(&space, "Alice");
    assert_eq!(alice["active"], false);
    assert_eq!(alice["paused"], true);
    assert_eq!(space.state()["accusations"], json!([]));
}

/// "Any player who was accused of inactivity by another player 7 days ago
/// and has not performed an action or a move in the last 7 days has eir
/// activity state set to false." A move performed since counts.
#[test]
fn an_accused_player_who_acted_since_stays_active() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "accuse Bob of inactivity"); // minute 3
    space.send(BOB, BOT, "move to (0, 0)");
    space.wait_until(3 + 7 * DAY);
    assert_eq!(player(&space, "Bob")["active"], true);
    assert!(!subjects(&space).iter().any(|s| s.contains("Activity")));
}

/// "A player may nod as an action, thereby setting eir activity state to
/// true." "Nodding has no other effect on the gamestate."
#[test]
fn a_player_may_nod_which_sets_eir_activity_state_true_and_nothing_else() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(BOB, "pause");
    let mut before = space.state();
    space.post(BOB, "nod");
    assert!(last_answer(&space, "bob@example.org").contains("You nod"));
    let mut after = space.state();
    assert_eq!(after["players"][1]["active"], true);
    for state in [&mut before, &mut after] {
        for key in [
            "active",
            "paused",
            "last_acted",
            "inactive_since",
            "removal_at",
        ] {
            state["players"][1][key] = Value::Null;
        }
    }
    assert_eq!(before, after);
}

/// "Each vertex of Space has 2 integers (x, y) which are called its
/// coordinates." "The coordinates of a vertex are part of the gamestate."
#[test]
fn each_vertex_has_integer_coordinates_in_the_gamestate() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    let state = space.state();
    let at: Vec<Value> = state["space"]["vertices"]
        .as_array()
        .map(|vertices| vertices.iter().map(|v| v["at"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(
        at,
        vec![json!([0, 0]), json!([1, 0]), json!([1, 1]), json!([0, 1])]
    );
    space.post(ALICE, "move to (0.5, 0)");
    space.wait_until(noon(1));
    assert_eq!(player(&space, "Alice")["location"], Value::Null);
}

/// "Two vertices of Space are considered coordinatewise adjacent if both the
/// absolute value of the difference between their x-coordinates and the
/// absolute value of the difference between their y-coordinates are at most
/// 1." (2, 0) is within 1 of (1, 0) but 2 from (0, 0) in x.
#[test]
fn coordinatewise_adjacent_means_both_differences_at_most_1() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    placed(&space, &[(ALICE, "(1, 0)"), (BOB, "(0, 0)")]);
    // From (1, 0): a new vertex (2, 0) joined to (1, 0) and (1, 1).
    space.post(ALICE, "add vertex (2, 0) joined to (1, 0) (1, 1)");
    space.wait_until(noon(6));
    assert!(vertex(&space, [2, 0]).is_some());
    // From (0, 0), (2, 0) is 2 away in x: no edge {(0, 1), (2, 0)}.
    space.post(BOB, "add edge (0, 1) (2, 0)");
    space.wait_until(noon(12));
    assert!(!has_edge(&space, [0, 1], [2, 0]));
    assert!(announced(&space, "Space changes evaluated").contains("no space change is executed"));
    // (1, 0) and (0, 1) differ by 1 in both: adjacent to (0, 0) and to each other.
    space.post(BOB, "add edge (1, 0) (0, 1)");
    space.wait_until(noon(18));
    assert!(has_edge(&space, [0, 1], [1, 0]));
}

/// "If a player has been inactive for 25 days, and e did not most recently
/// become inactive by pausing, e is completely removed from the game."
#[test]
fn a_player_inactive_for_25_days_not_by_pausing_is_removed() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "accuse Bob of inactivity"); // minute 3
    space.wait_until(3 + 7 * DAY);
    assert_eq!(player(&space, "Bob")["active"], false);
    space.wait_until(3 + 32 * DAY - 1);
    assert_eq!(player(&space, "Bob")["playing"], true);
    space.wait_until(3 + 32 * DAY);
    assert_eq!(player(&space, "Bob")["playing"], false);
    let body = announced(&space, "Activity");
    assert!(
        body.contains("completely removed") && body.contains("Bob"),
        "{body}"
    );
    space.post(BOB, "nod");
    assert!(last_answer(&space, "bob@example.org").contains("is not a player"));
}

/// "[...] and e did not most recently become inactive by pausing [...]": a
/// paused player stays in the game however long.
#[test]
fn a_player_inactive_by_pausing_is_not_removed_after_25_days() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(BOB, "pause");
    space.wait_until(40 * DAY);
    let bob = player(&space, "Bob");
    assert_eq!(bob["playing"], true);
    assert_eq!(bob["active"], false);
}

/// "If infinitely many vertices have players as owners, then this rule has
/// no effect." (Space is finite, so it always has.) "Otherwise, for each
/// player P: Let {x_1, x_2, ..., x_n} be the set of every vertex of Space
/// that has a player as owner." "The graphwise distance between nowhere and
/// any possible location of a player is considered to be infinite."
#[test]
fn only_vertices_owned_by_players_count_for_income() {
    let space = Space::three_players();
    placed(&space, &[(ALICE, "(0, 0)"), (BOB, "(1, 1)")]);
    // The first day's 21:00 came with no vertex owned by a player: no income.
    assert!(!subjects(&space).iter().any(|s| s.contains("Income")));
    space.post(ALICE, "buy");
    space.post(BOB, "buy");
    space.post(BOB, "give vertex (1, 1) to god");
    space.wait_until(evening(1));
    // n = 1, x_1 = (0, 0). Alice: 2/(0^2 + 2) = 1. Bob, at distance 2:
    // 2/(2^2 + 2) = 1/3. Carol, nowhere: infinitely far, 0.
    assert_eq!(space.money("Alice"), "66");
    assert_eq!(space.money("Bob"), "196/3");
    assert_eq!(space.money("Carol"), "97");
}

/// "Each day at 21:00 GMT, each player gains from nowhere a number of money
/// units equal to the average [ 2/(d_1^2+2) + 2/(d_2^2+2) + ... +
/// 2/(d_n^2+2) ]/n, where d_i represents the graphwise distance from that
/// player's location to x_i."
#[test]
fn income_of_three_players_against_a_hand_computation() {
    let space = Space::three_players();
    space.post(DAVE, "join Dave");
    placed(
        &space,
        &[(ALICE, "(0, 0)"), (BOB, "(1, 0)"), (CAROL, "(1, 1)")],
    );
    space.post(ALICE, "buy");
    space.post(BOB, "buy");
    space.post(CAROL, "buy");
    space.wait_until(evening(1) - 1);
    assert_eq!(space.money("Alice"), "65");
    space.wait_until(evening(1));
    // Alice, d = 0, 1, 2: (2/2 + 2/3 + 2/6) / 3 = (1 + 2/3 + 1/3) / 3 = 2/3.
    // Bob, d = 1, 0, 1: (2/3 + 1 + 2/3) / 3 = (7/3) / 3 = 7/9.
    // Carol, d = 2, 1, 0: (1/3 + 2/3 + 1) / 3 = 2/3. Dave, nowhere: 0.
    assert_eq!(space.money("Alice"), "197/3"); // 65 + 2/3
    assert_eq!(space.money("Bob"), "592/9"); // 65 + 7/9
    assert_eq!(space.money("Carol"), "197/3");
    assert_eq!(space.money("Dave"), "97");
    let body = announced(&space, "Income");
    assert!(body.contains("Bob: 7/9"), "{body}");
    // The next day again, the same.
    space.wait_until(evening(2));
    assert_eq!(space.money("Bob"), "599/9"); // 65 + 14/9
}

/// "The graphwise distance between two vertices a, b of space is the least
/// integer n for which there exists a sequence of vertices [...] graphwise
/// adjacent [...]." "The coordinatewise distance between two vertices a, b of
/// space is defined as their Euclidean distance [...]." "The coordinatewise
/// distance between nowhere and any possible location of a player is
/// considered to be infinite." The coordinatewise distance is defined and
/// used by no rule: the income goes by the path, not the straight line.
#[test]
fn the_graphwise_distance_is_the_length_of_the_shortest_path_not_the_euclidean_distance() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    placed(&space, &[(ALICE, "(0, 0)"), (BOB, "(1, 0)")]);
    space.post(BOB, "buy");
    space.wait_until(evening(1));
    // One edge away: 2/(1 + 2).
    assert!(announced(&space, "Income").contains("Alice: 2/3"));
    space.post(ALICE, "remove edge to (1, 0)");
    space.wait_until(evening(6));
    // (0, 0)-(0, 1)-(1, 1)-(1, 0): 3 edges, though 1 apart in a straight
    // line: 2/(3^2 + 2) = 2/11.
    let body = announced(&space, "Income");
    assert!(
        body.contains("Alice: 2/11") && body.contains("Bob: 1"),
        "{body}"
    );
}

/// "The point of the game is a map from the set of players to the set of
/// positive integers." "The point is in the gamestate."
#[test]
fn the_point_maps_each_player_to_a_positive_integer_in_the_gamestate() {
    let space = Space::three_players();
    let state = space.state();
    let players = state["players"].as_array().cloned().unwrap_or_default();
    assert_eq!(players.len(), 3);
    assert!(
        players.iter().all(|p| p["point"].as_u64() == Some(1)),
        "{state}"
    );
    space.post(ALICE, "status");
    assert!(
        last_answer(&space, "alice@example.org")
            .contains("Alice: 97 money units, at nowhere, active, point 1")
    );
}

/// "The expression "incrementing a player" may be used to refer to
/// incrementing a player's image under the point." A name only: no rule of
/// the text increments, so a month of play leaves every point at 1.
#[test]
fn incrementing_a_player_only_names_an_act() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Up: repeal 17\nvote 1 on Up");
    space.post(BOB, "vote 1 on Up");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "buy");
    space.wait_until(30 * DAY);
    assert_eq!(player(&space, "Alice")["point"], 1);
    assert_eq!(player(&space, "Bob")["point"], 1);
}

fn ending_at(end: &str) -> Space {
    let config = crate::support::trusting().replace(
        "end = \"2105-02-19T23:22:19Z\"",
        &format!("end = \"{end}\""),
    );
    Space::with_config(&config)
}

/// "The game ends on 19 February 2005 just before 23:22:19 GMT." An action a
/// minute before the instant counts; one at the instant is refused, and so
/// is every action after it. (`[space] end` is the instant, here 10:05.)
#[test]
fn the_game_ends_just_before_the_end_instant_and_refuses_everything_from_it() {
    let space = ending_at("2026-03-02T10:05:00Z");
    space.post(ALICE, "join Alice"); // 10:01
    space.post(BOB, "join Bob"); // 10:02
    space.wait_until(3);
    space.post(ALICE, "give 1 to Bob"); // 10:04
    assert_eq!(space.money("Bob"), "98");
    let before = space.state();
    space.post(ALICE, "give 1 to Bob"); // 10:05
    space.post(BOB, "propose Late: repeal 17");
    space.post(CAROL, "join Carol");
    space.post(BOB, "pause");
    for address in ["alice@example.org", "bob@example.org", "carol@example.org"] {
        assert!(
            last_answer(&space, address).contains("the Space Nomic ended"),
            "{address}"
        );
    }
    assert_eq!(space.state(), before);
    space.post(BOB, "status");
    assert!(last_answer(&space, "bob@example.org").contains("Bob: 98 money units"));
}

/// "The date and time of day are part of the gamestate, and are equal to the
/// minimum of their real-world values and 23:22:19 on 19 February 2005." The
/// game's clock stops at the end: no income, evaluation or expiry after it.
#[test]
fn the_date_and_time_of_the_game_stop_at_the_end() {
    let space = ending_at("2026-03-03T13:00:00Z");
    space.post(ALICE, "join Alice");
    space.post(ALICE, "propose Stays: repeal 17");
    space.post(BOB, "join Bob");
    placed(&space, &[(ALICE, "(0, 0)")]);
    space.post(ALICE, "buy");
    space.post(ALICE, "move to (1, 0)");
    let before = space.state();
    space.wait_until(20 * DAY);
    assert_eq!(space.state(), before);
    assert_eq!(space.money("Alice"), "65");
    assert!(
        !subjects(&space)
            .iter()
            .any(|s| s.contains("Income") || s.contains("destroyed"))
    );
}

/// "Furthermore, if after these votes the sum of all votes on the proposal
/// could not be greater than zero, then the proposal is destroyed; we then
/// say that the proposal has failed." Decided at the instant an accused
/// player who had not voted becomes inactive: -1/2 and no one left to vote.
#[test]
fn a_proposal_fails_at_the_instant_an_accused_non_voter_becomes_inactive() {
    let space = Space::new();
    space.post(ALICE, "join Alice");
    space.post(BOB, "join Bob");
    space.post(ALICE, "propose Doubt: repeal 17\nvote -1/2 on Doubt");
    space.post(ALICE, "accuse Bob of inactivity"); // minute 4
    space.wait_until(4 + 7 * DAY - 1);
    assert_eq!(space.state()["proposals"][0]["name"], "Doubt");
    space.wait_until(4 + 7 * DAY);
    assert_eq!(space.state()["proposals"], json!([]));
    assert!(announced(&space, "Proposal Doubt failed").contains("the sum of its votes is -1/2"));
    // Alice: 97 - (6 + 1/403) as creator + (6 + 1/403) as voter.
    assert_eq!(space.money("Alice"), "97");
    assert!(rule_numbers(&space).contains(&17));
}
